import { filePathSegments, stateKeySegments } from '../../tool/accessPaths';
import type { ToolAccesses } from '../../tool/accesses';

/** What the index knows of a task: its place in the batch. */
export interface IndexedTask {
  readonly index: number;
}

/**
 * The unfinished tasks holding one kind of access to one resource, in call order (a Set keeps
 * insertion order and deletes in O(1)), and which of them run.
 */
class Holders<T extends IndexedTask> {
  private tasks = new Set<T>();
  private running: Set<T> | undefined;
  private highestIndex = -1;

  constructor(
    readonly node?: ResourceNode<T>,
    readonly slot = 0,
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  add(task: T): void {
    if (this.tasks.has(task)) return;
    if (task.index > this.highestIndex) {
      this.tasks.add(task);
      this.highestIndex = task.index;
    } else {
      // Only a retargeted task joins out of call order: rare, so the set is rebuilt in order.
      this.tasks = new Set([...this.tasks, task].sort((a, b) => a.index - b.index));
    }
  }

  delete(task: T): void {
    this.tasks.delete(task);
    this.running?.delete(task);
  }

  markRunning(task: T): void {
    (this.running ??= new Set()).add(task);
  }

  /** A holder other than `task` that is earlier than it, or running; the earliest holder is checked first. */
  blockerOf(task: T): T | undefined {
    const first = this.tasks.values().next().value;
    if (first !== undefined && first !== task && first.index < task.index) return first;
    if (this.running) for (const running of this.running) if (running !== task) return running;
    return undefined;
  }
}

// A node's holders, by slot: the access's scope plus WRITE or READ (a read or a search).
const WRITE = 0;
const READ = 1;
/** Accesses of exactly this resource. */
const EXACT = 0;
/** Recursive accesses of this resource: they cover everything below it (every state access does). */
const COVER = 2;
/** Accesses of this resource or of anything below it. */
const WITHIN = 4;

/** A path or key prefix in a tree of segments. Empty nodes are removed. */
class ResourceNode<T extends IndexedTask> {
  children: Map<string, ResourceNode<T>> | undefined;
  readonly holders: (Holders<T> | undefined)[] = [];

  constructor(
    readonly parent?: ResourceNode<T>,
    readonly segment = '',
  ) {}

  child(segment: string): ResourceNode<T> | undefined {
    return this.children?.get(segment);
  }

  orCreateChild(segment: string): ResourceNode<T> {
    let child = this.children?.get(segment);
    if (!child) {
      child = new ResourceNode(this, segment);
      (this.children ??= new Map()).set(segment, child);
    }
    return child;
  }

  orCreateHolders(slot: number): Holders<T> {
    return (this.holders[slot] ??= new Holders(this, slot));
  }

  isEmpty(): boolean {
    return (this.children === undefined || this.children.size === 0) && this.holders.every((h) => h === undefined);
  }
}

/** One file or state access, parsed once. */
interface TreeAccess {
  readonly root: 'files' | 'state';
  readonly segments: readonly string[];
  readonly write: boolean;
  readonly covering: boolean;
}

interface Registration<T extends IndexedTask> {
  readonly all: boolean;
  readonly trees: readonly TreeAccess[];
  /** Every Holders the task is in (a Holders may appear more than once). */
  readonly holders: Holders<T>[];
}

/**
 * The accesses of a batch's unfinished tasks, by resource, so that finding whether a task
 * conflicts with an earlier unfinished or a running one costs the depth of its paths, not the
 * batch's size. Agrees with `conflict()` (tool/accesses.ts) exactly: `all` conflicts with every
 * access; two file accesses conflict when one writes and their paths are equal or a recursive one
 * covers the other; two state accesses when one writes and one key is a prefix of the other.
 */
export class AccessIndex<T extends IndexedTask> {
  private readonly registrations = new Map<T, Registration<T>>();
  /** Tasks that touch anything. */
  private readonly touching = new Holders<T>();
  /** Tasks holding `all`. */
  private readonly everything = new Holders<T>();
  private readonly roots = { files: new ResourceNode<T>(), state: new ResourceNode<T>() };

  add(task: T, accesses: ToolAccesses): void {
    if (this.registrations.has(task)) throw new Error(`Task ${task.index} is already indexed.`);
    if (accesses.length === 0) return;
    const trees: TreeAccess[] = [];
    let all = false;
    for (const access of accesses) {
      if (access.kind === 'all') all = true;
      else if (access.kind === 'file') {
        trees.push({ root: 'files', segments: filePathSegments(access.path), write: access.op === 'write', covering: access.recursive === true });
      } else if (access.kind === 'state') {
        trees.push({ root: 'state', segments: stateKeySegments(access.key), write: access.op === 'write', covering: true });
      }
      // A process or network access conflicts only with `all`: being touching covers it.
    }
    const holders: Holders<T>[] = [this.touching];
    if (all) holders.push(this.everything);
    for (const tree of trees) {
      const side = tree.write ? WRITE : READ;
      let node = this.roots[tree.root];
      for (const segment of tree.segments) {
        node = node.orCreateChild(segment);
        holders.push(node.orCreateHolders(WITHIN + side));
      }
      holders.push(node.orCreateHolders(EXACT + side));
      if (tree.covering) holders.push(node.orCreateHolders(COVER + side));
    }
    for (const h of holders) h.add(task);
    this.registrations.set(task, { all, trees, holders });
  }

  /** The task now runs: it holds back later conflicting tasks too. */
  markRunning(task: T): void {
    for (const h of this.registrations.get(task)?.holders ?? []) h.markRunning(task);
  }

  remove(task: T): void {
    const registration = this.registrations.get(task);
    if (!registration) return;
    this.registrations.delete(task);
    for (const h of registration.holders) {
      h.delete(task);
      const node = h.node;
      if (node && h.size === 0 && node.holders[h.slot] === h) {
        node.holders[h.slot] = undefined;
        this.prune(node);
      }
    }
  }

  /**
   * An unfinished task that conflicts with `task` and is earlier than it or running, if there is
   * one: while there is, `task` must not start.
   */
  blockerOf(task: T): T | undefined {
    const registration = this.registrations.get(task);
    if (!registration) return undefined;
    const blocker = this.everything.blockerOf(task) ?? (registration.all ? this.touching.blockerOf(task) : undefined);
    if (blocker) return blocker;
    for (const tree of registration.trees) {
      const found = this.treeBlockerOf(task, tree);
      if (found) return found;
    }
    return undefined;
  }

  private treeBlockerOf(task: T, access: TreeAccess): T | undefined {
    // A write conflicts with reads and writes; a read or a search only with writes.
    const sides = access.write ? [WRITE, READ] : [WRITE];
    let node: ResourceNode<T> | undefined = this.roots[access.root];
    for (let depth = 0; depth < access.segments.length; depth++) {
      node = node.child(access.segments[depth]!);
      if (!node) return undefined;
      const last = depth === access.segments.length - 1;
      // Above the resource only recursive accesses reach it; at it, all of its own, and those
      // below it too when this access is recursive.
      const scope = !last ? COVER : access.covering ? WITHIN : EXACT;
      for (const side of sides) {
        const blocker = node.holders[scope + side]?.blockerOf(task);
        if (blocker) return blocker;
      }
    }
    return undefined;
  }

  private prune(node: ResourceNode<T>): void {
    let at: ResourceNode<T> | undefined = node;
    while (at?.parent && at.isEmpty()) {
      at.parent.children!.delete(at.segment);
      at = at.parent;
    }
  }
}
