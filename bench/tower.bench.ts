import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { TowerStateStore } from '../src/features/tower/towerStateStore';
import { createLocalRuntime } from '../src/services/runtime/localRuntime';
import { fmt, median, nowMs, table } from './util';

const UPDATES = 1000;
const WORKERS = 8;
const ROUNDS = 3;

/** One update: a worker appends its tick (what a roster or mission change does). */
async function run(stores: readonly TowerStateStore[], file: string, concurrent: boolean): Promise<{ ms: number; landed: number; version: number }> {
  fs.rmSync(file, { force: true });
  const fsApi = createLocalRuntime().fs!;
  const update = (i: number) =>
    stores[i % stores.length]!.update(fsApi, file, (s) => ({
      state: { active: true, baseBranch: 'main', owner: 'bench', missions: [], reviews: [], roster: [], nextWorktree: (s?.nextWorktree ?? 0) + 1 },
      result: undefined,
    }));
  const start = nowMs();
  if (concurrent) await Promise.all(Array.from({ length: UPDATES }, (_, i) => update(i)));
  else for (let i = 0; i < UPDATES; i++) await update(i);
  const ms = nowMs() - start;
  const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { nextWorktree: number; version: number };
  return { ms, landed: saved.nextWorktree, version: saved.version };
}

/**
 * 1,000 state.json updates: one writer one after another (baseline), 8 workers of one App at once
 * (one store: queued), and 8 writers as separate processes would be (8 stores: the O_EXCL lock
 * file serializes them). Every update must land: the count and the version are 1,000.
 */
export async function towerBench(): Promise<void> {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-tower-bench-'));
  const file = nodePath.join(dir, 'state.json');
  const one = [new TowerStateStore()];
  const shared = new TowerStateStore();
  const sameApp = Array.from({ length: WORKERS }, () => shared);
  const separate = Array.from({ length: WORKERS }, () => new TowerStateStore());
  const times: [number[], number[], number[]] = [[], [], []];
  const landed: string[] = ['', '', ''];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [stores, concurrent]] of ([[one, false], [sameApp, true], [separate, true]] as const).entries()) {
      const r = await run(stores, file, concurrent);
      times[i]!.push(r.ms);
      landed[i] = `${r.landed}/${UPDATES} (version ${r.version})`;
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const [base, app, procs] = times.map(median) as [number, number, number];
  console.log(`\n## Tower state.json: ${UPDATES} updates, median of ${ROUNDS} alternating rounds`);
  console.log(
    table(
      ['case', 'ms', 'µs/update', 'landed', 'ratio'],
      [
        ['1 writer, one after another', fmt(base), fmt((base * 1000) / UPDATES), landed[0]!, '1.00x'],
        [`${WORKERS} workers of one App, at once`, fmt(app), fmt((app * 1000) / UPDATES), landed[1]!, `${fmt(app / base)}x`],
        [`${WORKERS} separate writers (lock file), at once`, fmt(procs), fmt((procs * 1000) / UPDATES), landed[2]!, `${fmt(procs / base)}x`],
      ],
    ),
  );
  console.log('Aim: every update lands (1000/1000).');
}
