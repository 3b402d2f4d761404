import { filePathSegments, stateKeySegments } from '../../tool/accessPaths';
import type { ToolAccesses } from '../../tool/accesses';

/** What the index knows of a task: its place in the batch. */
export interface IndexedTask {
  readonly index: number;
}

/**
 * The unfinished tasks holding one kind of access to one resource, in call order, and which of
 * them run. Most resources have one holder, kept without a Set; more go into a Set (it keeps
 * insertion order and deletes in O(1)).
 */
class Holders<T extends IndexedTask> {
  private only: T | undefined;
  private many: Set<T> | undefined;
  private running: Set<T> | undefined;
  /** The highest index added so far: a task below it joins out of call order. */
  private highest = -1;

  isEmpty(): boolean {
    return this.many ? this.many.size === 0 : this.only === undefined;
  }

  add(task: T): void {
    if (this.only === task || this.many?.has(task)) return;
    if (!this.many && this.only === undefined) this.only = task;
    else {
      this.many ??= new Set([this.only!]);
      this.only = undefined;
      this.many.add(task);
      // Only a retargeted task joins out of call order: rare, so the set is rebuilt in order.
      if (task.index < this.highest) this.many = new Set([...this.many].sort((a, b) => a.index - b.index));
    }
    this.highest = Math.max(this.highest, task.index);
  }

  delete(task: T): void {
    if (this.only === task) this.only = undefined;
    this.many?.delete(task);
    this.running?.delete(task);
  }

  markRunning(task: T): void {
    (this.running ??= new Set()).add(task);
  }

  /** A holder other than `task` that is earlier than it, or running; the earliest holder is checked first. */
  blockerOf(task: T): T | undefined {
    const first = this.many ? this.many.values().next().value : this.only;
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

  orCreateChild(segment: string): ResourceNode<T> {
    let child = this.children?.get(segment);
    if (!child) {
      child = new ResourceNode(this, segment);
      (this.children ??= new Map()).set(segment, child);
    }
    return child;
  }

  orCreateHolders(slot: number): Holders<T> {
    return (this.holders[slot] ??= new Holders());
  }

  dropEmptyHolders(): void {
    for (let slot = 0; slot < this.holders.length; slot++) if (this.holders[slot]?.isEmpty()) this.holders[slot] = undefined;
  }

  isEmpty(): boolean {
    return (this.children === undefined || this.children.size === 0) && this.holders.every((h) => h === undefined);
  }
}

/** One file or state access: the node of its resource, and how it holds it. */
interface TreeAccess<T extends IndexedTask> {
  readonly node: ResourceNode<T>;
  readonly side: typeof WRITE | typeof READ;
  readonly covering: boolean;
}

interface Registration<T extends IndexedTask> {
  readonly all: boolean;
  readonly trees: readonly TreeAccess<T>[];
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
    const trees: TreeAccess<T>[] = [];
    let all = false;
    for (const access of accesses) {
      if (access.kind === 'all') all = true;
      else if (access.kind === 'file') trees.push(this.treeAccess(this.roots.files, filePathSegments(access.path), access.op === 'write', access.recursive === true));
      else if (access.kind === 'state') trees.push(this.treeAccess(this.roots.state, stateKeySegments(access.key), access.op === 'write', true));
      // A process or network access conflicts only with `all`: being touching covers it.
    }
    const registration = { all, trees };
    this.registrations.set(task, registration);
    this.forEachHolders(registration, (h) => h.add(task));
  }

  /** The task now runs: it holds back later conflicting tasks too. */
  markRunning(task: T): void {
    const registration = this.registrations.get(task);
    if (registration) this.forEachHolders(registration, (h) => h.markRunning(task));
  }

  remove(task: T): void {
    const registration = this.registrations.get(task);
    if (!registration) return;
    this.registrations.delete(task);
    this.forEachHolders(registration, (h) => h.delete(task));
    for (const { node } of registration.trees) this.prune(node);
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

  private treeAccess(root: ResourceNode<T>, segments: readonly string[], write: boolean, covering: boolean): TreeAccess<T> {
    let node = root;
    for (const segment of segments) node = node.orCreateChild(segment);
    return { node, side: write ? WRITE : READ, covering };
  }

  /** Every Holders a registration is in: of the resource itself, and WITHIN at it and every node above it. */
  private forEachHolders(registration: Registration<T>, visit: (holders: Holders<T>) => void): void {
    visit(this.touching);
    if (registration.all) visit(this.everything);
    for (const { node, side, covering } of registration.trees) {
      visit(node.orCreateHolders(EXACT + side));
      if (covering) visit(node.orCreateHolders(COVER + side));
      for (let at: ResourceNode<T> | undefined = node; at?.parent; at = at.parent) visit(at.orCreateHolders(WITHIN + side));
    }
  }

  private treeBlockerOf(task: T, access: TreeAccess<T>): T | undefined {
    // A write conflicts with reads and writes; a read or a search only with writes.
    const sides = access.side === WRITE ? [WRITE, READ] : [WRITE];
    // At the resource: all of its own accesses, and those below it too when this one is recursive.
    const scope = access.covering ? WITHIN : EXACT;
    for (const side of sides) {
      const blocker = access.node.holders[scope + side]?.blockerOf(task);
      if (blocker) return blocker;
    }
    // Above it, only recursive accesses reach it.
    for (let at = access.node.parent; at?.parent; at = at.parent) {
      for (const side of sides) {
        const blocker = at.holders[COVER + side]?.blockerOf(task);
        if (blocker) return blocker;
      }
    }
    return undefined;
  }

  /** Drops the empty holders of the node and of those above it, and the nodes left empty. */
  private prune(node: ResourceNode<T>): void {
    for (let at: ResourceNode<T> | undefined = node; at?.parent; at = at.parent) {
      at.dropEmptyHolders();
      if (at.isEmpty()) at.parent.children!.delete(at.segment);
    }
  }
}
