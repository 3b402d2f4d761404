/**
 * Command-line options read the way getopt_long reads them, so that what a program will do with
 * its arguments can be judged from the arguments: `-abc` groups, `-ofile` and `-o file`,
 * `--name=value` and `--name value`, `--` and, as GNU tools accept, any unambiguous prefix of a
 * long option (`--out=f` is `--output=f`).
 */

/**
 * none: `-x`; required: `-x v`, `-xv`, `--name v`, `--name=v`; optional: `-xv`, `--name=v` only;
 * next: optional, also as the next argument when one follows that is not an option (git's
 * `--contains [<commit>]`).
 */
export type OptionArgument = 'none' | 'required' | 'optional' | 'next';

/** A table from a compact list: `a b` take no value, `o=` one, `d?` an optional one, `c+` the next argument if any. */
export function optionList(list: string): Record<string, OptionArgument> {
  const out: Record<string, OptionArgument> = {};
  for (const item of list.split(/\s+/).filter((x) => x !== '')) {
    const mark = item[item.length - 1]!;
    const kind: OptionArgument | undefined = mark === '=' ? 'required' : mark === '?' ? 'optional' : mark === '+' ? 'next' : undefined;
    out[kind ? item.slice(0, -1) : item] = kind ?? 'none';
  }
  return out;
}

export interface OptionTable {
  /** Short options by letter. */
  readonly short?: Readonly<Record<string, OptionArgument>>;
  /** Long options by name without `--`. List every option the program has that shares a prefix with another, writing ones too, so abbreviations resolve as they do in the program. */
  readonly long?: Readonly<Record<string, OptionArgument>>;
  /** Options end at the first operand (getopt's `+`, as in `env`, `nice`, `xargs`): what follows is the command they run. Otherwise options and operands mix, as GNU getopt permutes them. */
  readonly stopAtOperand?: boolean;
  /** `--no-NAME` turns a long option NAME off (git, ripgrep); it takes no value. */
  readonly negatable?: boolean;
  /** Words like `-5` are an option of their own (`head -5`, `git log -5`). */
  readonly numberOption?: boolean;
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
  if (candidates.length > 1) return { error: `uses --${written}, which is ambiguous (${candidates.map((c) => '--' + c).join(', ')})` };
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
      if ('error' in resolved && table.negatable && written.startsWith('no-') && equals < 0) {
        const base = resolveLongOption(written.slice(3), long);
        if (!('error' in base)) {
          options.push({ name: '--no-' + base.name, written: arg });
          continue;
        }
      }
      if ('error' in resolved) return { ok: false, error: resolved.error };
      const name = '--' + resolved.name;
      const kind = long[resolved.name]!;
      if (equals >= 0) {
        if (kind === 'none') return { ok: false, error: `gives ${name} a value, which it does not take` };
        options.push({ name, value: arg.slice(equals + 1), written: arg });
      } else if (kind === 'required') {
        if (i + 1 >= args.length) return { ok: false, error: `uses ${name} without its value` };
        options.push({ name, value: args[++i]!, written: arg });
      } else if (kind === 'next' && i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
        options.push({ name, value: args[++i]!, written: arg });
      } else {
        options.push({ name, written: arg });
      }
      continue;
    }
    if (table.numberOption && /^-[0-9]+$/.test(arg)) {
      options.push({ name: '-<number>', value: arg.slice(1), written: arg });
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
        if (i + 1 >= args.length) return { ok: false, error: `uses -${letter} without its value` };
        options.push({ name: '-' + letter, value: args[++i]!, written: arg });
      } else if (kind === 'next' && i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
        options.push({ name: '-' + letter, value: args[++i]!, written: arg });
      } else {
        options.push({ name: '-' + letter, written: arg });
      }
      break;
    }
  }
  return { ok: true, options, operands, firstOperand: args.length };
}
