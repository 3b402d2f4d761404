/** A file's modification time, its path (which orders equal times) and what is kept for it. */
type Stamped<T> = readonly [mtimeMs: number, path: string, item: T];

const order = <T>(a: Stamped<T>, b: Stamped<T>): number => b[0] - a[0] || (a[1] < b[1] ? -1 : a[1] === b[1] ? 0 : 1);

/**
 * The first `wanted` files in newest-first order (equal times in path order) of those added,
 * selected as they come: once twice as many are held, they are cut back to the first `wanted`,
 * and a file that comes after the last of those is dropped with one comparison. A page of 100
 * out of 27k then keeps a few hundred files at a time instead of every one (most files cost that
 * one comparison, where a sort compares each about 15 times, and the files dropped die young).
 * Glob's listing and Grep's files_with_matches order both use it.
 */
export class NewestFirst<T> {
  private held: Stamped<T>[] = [];
  /** The last of the first `wanted` at the last cut: nothing after it can be on the page. */
  private last: Stamped<T> | undefined;
  private added = 0;

  /** `wanted` at least 1 (Infinity keeps and sorts every file). */
  constructor(private readonly wanted: number) {}

  /** How many files were added. */
  get count(): number {
    return this.added;
  }

  add(mtimeMs: number, path: string, item: T): void {
    this.added++;
    const last = this.last;
    if (last && (mtimeMs < last[0] || (mtimeMs === last[0] && path > last[1]))) return;
    this.held.push([mtimeMs, path, item]);
    if (this.held.length >= 2 * this.wanted) this.cut();
  }

  private cut(): void {
    this.held.sort(order).length = this.wanted;
    this.last = this.held[this.wanted - 1];
  }

  /** The first `wanted` of the files added, in order. */
  take(): T[] {
    return this.held.sort(order).slice(0, this.wanted).map(([, , item]) => item);
  }
}
