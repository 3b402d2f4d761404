/**
 * Command-line options read the way getopt_long reads them, so that what a program will do with
 * its arguments can be judged from the arguments: `-abc` groups, `-ofile` and `-o file`,
 * `--name=value` and `--name value`, `--` and, as GNU tools accept, any unambiguous prefix of a
 * long option (`--out=f` is `--output=f`).
 */

/** none: `-x`; required: `-x v`, `-xv`, `--name v`, `--name=v`; optional: `-xv`, `--name=v` only. */
export type OptionArgument = 'none' | 'required' | 'optional';

export interface OptionTable {
  /** Short options by letter. */
  readonly short?: Readonly<Record<string, OptionArgument>>;
  /** Long options by name without `--`. List every option the program has that shares a prefix with another, writing ones too, so abbreviations resolve as they do in the program. */
  readonly long?: Readonly<Record<string, OptionArgument>>;
  /** Options end at the first operand (getopt's `+`, as in `env`, `nice`, `xargs`): what follows is the command they run. Otherwise options and operands mix, as GNU getopt permutes them. */
  readonly stopAtOperand?: boolean;
}

export interface ParsedOption {
  /** `-x`, or `--name` in full also when it was abbreviated. */
  readonly name: string;
  readonly value?: string;
  /** The argument as written. */
  readonly written: string;
}

export type ParsedArguments =
  | {
      readonly ok: true;
      readonly options: readonly ParsedOption[];
      readonly operands: readonly string[];
      /** Where the operands start in the arguments when `stopAtOperand` is set (the length when there are none). */
      readonly firstOperand: number;
    }
  | { readonly ok: false; readonly error: string };

/** The full name of a long option from what was written, or why it names none. */
export function resolveLongOption(written: string, long: Readonly<Record<string, OptionArgument>>): { name: string } | { error: string } {
  if (Object.prototype.hasOwnProperty.call(long, written)) return { name: written };
  const candidates = Object.keys(long).filter((name) => name.startsWith(written));
  if (candidates.length === 1) return { name: candidates[0]! };
  if (candidates.length > 1) return { error: `--${written} is ambiguous (${candidates.map((c) => '--' + c).join(', ')})` };
  return { error: `uses --${written}, which is not a known option` };
}

export function parseOptions(args: readonly string[], table: OptionTable): ParsedArguments {
  const short = table.short ?? {};
  const long = table.long ?? {};
  const options: ParsedOption[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      return { ok: true, options, operands, firstOperand: table.stopAtOperand ? i + 1 : args.length };
    }
    if (arg === '-' || !arg.startsWith('-')) {
      if (table.stopAtOperand) {
        operands.push(...args.slice(i));
        return { ok: true, options, operands, firstOperand: i };
      }
      operands.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const written = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
      const resolved = resolveLongOption(written, long);
      if ('error' in resolved) return { ok: false, error: resolved.error };
      const name = '--' + resolved.name;
      const kind = long[resolved.name]!;
      if (equals >= 0) {
        if (kind === 'none') return { ok: false, error: `${name} takes no value` };
        options.push({ name, value: arg.slice(equals + 1), written: arg });
      } else if (kind === 'required') {
        if (i + 1 >= args.length) return { ok: false, error: `${name} needs a value` };
        options.push({ name, value: args[++i]!, written: arg });
      } else {
        options.push({ name, written: arg });
      }
      continue;
    }
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k]!;
      const kind = Object.prototype.hasOwnProperty.call(short, letter) ? short[letter] : undefined;
      if (kind === undefined) return { ok: false, error: `uses -${letter}, which is not a known option` };
      if (kind === 'none') {
        options.push({ name: '-' + letter, written: arg });
        continue;
      }
      const attached = arg.slice(k + 1);
      if (attached !== '') {
        options.push({ name: '-' + letter, value: attached, written: arg });
      } else if (kind === 'required') {
        if (i + 1 >= args.length) return { ok: false, error: `-${letter} needs a value` };
        options.push({ name: '-' + letter, value: args[++i]!, written: arg });
      } else {
        options.push({ name: '-' + letter, written: arg });
      }
      break;
    }
  }
  return { ok: true, options, operands, firstOperand: args.length };
}
