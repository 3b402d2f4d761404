/**
 * The content extractor's worker thread. Its body is the function below, started with
 * `new Worker(EXTRACTOR_WORKER_SOURCE, {eval: true, workerData})`, so it works the same from
 * compiled code, the CLI bundle and ts-jest: it must not reference anything outside itself. The
 * packages are required by the absolute paths the main thread resolved (workerData.modules), on
 * the first conversion: linkedom alone costs a few hundred milliseconds. Keep coverage
 * instrumentation away from this file.
 */

/** Absolute entry paths of the packages the worker loads. */
export interface ExtractorModules {
  readonly linkedom: string;
  readonly readability: string;
  readonly turndown: string;
  readonly gfm: string;
}

/**
 * `page`: a whole page; with `splitTail`, that fraction of the article's top-level blocks is handed
 * back first (a `tail` message, for a second worker) and the page's Markdown covers the rest.
 * `blocks`: the Markdown of such a tail.
 */
export type ExtractorRequest =
  | { readonly id: number; readonly kind: 'page'; readonly html: string; readonly baseUrl: string; readonly mainContent: boolean; readonly splitTail?: number }
  | { readonly id: number; readonly kind: 'blocks'; readonly html: string };

/**
 * Markdown here is turndown's output as it is; the main thread joins a split page's two parts and
 * tidies blank lines once (so a split page and a whole one end the same).
 */
export type ExtractorResponse =
  | { readonly id: number; readonly kind: 'tail'; readonly html: string }
  | { readonly id: number; readonly kind: 'page'; readonly markdown: string; readonly split: boolean; readonly title?: string; readonly extracted: 'main content (Readability)' | 'full page'; readonly textChars: number }
  | { readonly id: number; readonly kind: 'blocks'; readonly markdown: string }
  | { readonly id: number; readonly kind: 'error'; readonly message: string };

/**
 * A paragraph put where a page is split (after the head, before the tail): turndown renders it as
 * a block of its own, so each part's Markdown ends (or starts) with it and a blank line exactly as
 * the whole page has at that point, and cutting it off leaves what the whole page's conversion
 * has there. A page whose HTML contains it is not split.
 */
export const SPLIT_MARK = 'toolhostsplitmark7f3a';

export function extractorWorkerMain(): void {
  const threads = process.getBuiltinModule('node:worker_threads');
  const { createRequire } = process.getBuiltinModule('node:module');
  const port = threads.parentPort!;
  const { modules, splitMark } = threads.workerData as { modules: ExtractorModules; splitMark: string };
  const load = createRequire(modules.linkedom);
  const nodePath = process.getBuiltinModule('node:path');
  const nodeFs = process.getBuiltinModule('node:fs');
  const NodeModule = process.getBuiltinModule('node:module') as unknown as {
    new (id: string, parent?: unknown): { filename: string; paths: string[]; loaded: boolean; _compile(code: string, file: string): void };
    _nodeModulePaths(dir: string): string[];
  };

  /**
   * linkedom's EventTarget constructor puts every node (text nodes too) into one module-wide
   * WeakMap, for listeners no conversion adds. A WeakMap of millions of entries makes V8's garbage
   * collection superlinear (ephemeron tables): on a 1.7 MB page most of the parse time. The module
   * is loaded here first with the map made on the first addEventListener; if linkedom's source is
   * not what this expects, it is left as it is (slower, same result).
   */
  const preloadLazyEventTarget = () => {
    const file = nodePath.join(nodePath.dirname(modules.linkedom), 'interface', 'event-target.js');
    let source: string;
    try {
      source = nodeFs.readFileSync(file, 'utf8');
    } catch {
      return;
    }
    const edits: [string, string][] = [
      ['constructor() {\n    wm.set(this, new Map);\n  }', 'constructor() {}'],
      ['addEventListener(type, listener, options) {\n    const map = wm.get(this);', 'addEventListener(type, listener, options) {\n    let map = wm.get(this);\n    if (!map) wm.set(this, (map = new Map));'],
      ['removeEventListener(type, listener) {\n    const map = wm.get(this);\n    if (map.has(type)) {', 'removeEventListener(type, listener) {\n    const map = wm.get(this);\n    if (map && map.has(type)) {'],
    ];
    let patched = source;
    for (const [from, to] of edits) {
      if (!patched.includes(from)) return;
      patched = patched.replace(from, to);
    }
    const loaded = new NodeModule(file);
    loaded.filename = file;
    loaded.paths = NodeModule._nodeModulePaths(nodePath.dirname(file));
    loaded._compile(patched, file);
    loaded.loaded = true;
    (load.cache as Record<string, unknown>)[file] = loaded;
  };

  // The little of the DOM used here (the project compiles without the DOM library).
  interface DomElement {
    readonly nodeType: number;
    readonly nodeName: string;
    readonly childNodes: ArrayLike<DomElement>;
    readonly previousSibling: DomElement | null;
    readonly outerHTML: string;
    cloneNode(deep: boolean): DomElement;
    append(...nodes: DomElement[]): void;
    normalize(): void;
    getAttribute(name: string): string | null;
    setAttribute(name: string, value: string): void;
    remove(): void;
    textContent: string | null;
    readonly innerHTML: string;
  }
  interface Document {
    createElement(tag: string): DomElement;
    querySelector(selector: string): DomElement | null;
    querySelectorAll(selector: string): Iterable<DomElement>;
    readonly body: DomElement | null;
  }
  interface Loaded {
    parseHTML: (html: string) => { document: Document };
    Readability: new (doc: Document, options?: object) => { parse(): { title?: string | null; content?: DomElement | null } | null };
    turndown: { turndown(html: string | DomElement): string };
  }
  let loaded: Loaded | undefined;
  const libraries = (): Loaded => {
    if (loaded) return loaded;
    preloadLazyEventTarget();
    const { parseHTML } = load(modules.linkedom) as { parseHTML: Loaded['parseHTML'] };
    const { Readability } = load(modules.readability) as { Readability: Loaded['Readability'] };
    const TurndownService = load(modules.turndown) as new (options: object) => Loaded['turndown'] & { use(plugin: unknown): void; remove(tags: string[]): void };
    const { gfm } = load(modules.gfm) as { gfm: unknown };
    const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
    turndown.use(gfm);
    tableRows(parseHTML('<table></table>').document);
    turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas', 'form', 'button', 'select', 'input', 'textarea'] as string[]);
    loaded = { parseHTML, Readability, turndown };
    return loaded;
  };

  /**
   * turndown's GFM tables read `table.rows`, which linkedom's tables lack (a string handed to
   * turndown went through its own parser, which has it): the table's rows, nested tables' left out.
   */
  const tableRows = (document: Document) => {
    const prototype = Object.getPrototypeOf(document.createElement('table')) as object;
    if ('rows' in prototype) return;
    Object.defineProperty(prototype, 'rows', {
      configurable: true,
      get(this: DomElement & { getElementsByTagName(tag: string): Iterable<DomElement & { closest(selector: string): unknown }> }) {
        return [...this.getElementsByTagName('tr')].filter((row) => row.closest('table') === this);
      },
    });
  };

  const absolutize = (document: Document, baseUrl: string) => {
    // linkedom has no baseURI: links and images are made absolute here, for Readability and turndown alike.
    for (const [selector, attribute] of [
      ['a[href]', 'href'],
      ['img[src]', 'src'],
    ] as const) {
      for (const element of document.querySelectorAll(selector)) {
        const value = element.getAttribute(attribute);
        if (value === null || value.startsWith('#') || /^(javascript|data|mailto):/i.test(value)) continue;
        try {
          element.setAttribute(attribute, new URL(value, baseUrl).href);
        } catch {
          // A malformed URL stays as it was.
        }
      }
    }
  };

  // Elements whose turndown rule is a block of its own: a part may start or end at one.
  const blockTags = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'DL', 'PRE', 'TABLE', 'BLOCKQUOTE', 'HR', 'DIV', 'SECTION', 'FIGURE']);
  // Wrappers turndown renders as their children and nothing else: the split goes inside them.
  const wrapperTags = new Set(['DIV', 'ARTICLE', 'SECTION', 'MAIN']);
  const isBlank = (node: DomElement) => node.nodeType === 8 || (node.nodeType === 3 && !/\S/.test(node.textContent ?? ''));
  const isBlock = (node: DomElement | undefined) => node !== undefined && node.nodeType === 1 && blockTags.has(node.nodeName);

  /**
   * Moves the last `fraction` of the article's top-level blocks into a copy of their parent (the
   * split mark first) and returns its HTML; the mark takes their place in the document. The parts
   * meet between two block elements, so no text runs across the cut. Undefined when the article
   * has too few blocks or no such place.
   */
  const splitTail = (document: Document, content: DomElement, fraction: number): string | undefined => {
    let container = content;
    for (;;) {
      const elements = Array.from(container.childNodes).filter((n) => !isBlank(n));
      if (elements.length !== 1 || elements[0]!.nodeType !== 1 || !wrapperTags.has(elements[0]!.nodeName)) break;
      container = elements[0]!;
    }
    const children = Array.from(container.childNodes);
    if (children.length < 16) return undefined;
    let at = Math.floor(children.length * (1 - fraction));
    const before = (index: number) => {
      let i = index - 1;
      while (i >= 0 && isBlank(children[i]!)) i--;
      return children[i];
    };
    while (at < children.length && !(isBlock(children[at]) && isBlock(before(at)))) at++;
    if (at >= children.length) return undefined;
    const mark = () => {
      const p = document.createElement('p');
      p.textContent = splitMark;
      return p;
    };
    const shell = container.cloneNode(false);
    shell.append(mark(), ...children.slice(at));
    container.append(mark());
    return shell.outerHTML;
  };

  port.on('message', (request: ExtractorRequest) => {
    try {
      const { parseHTML, Readability, turndown } = libraries();
      if (request.kind === 'blocks') {
        const body = parseHTML(`<!doctype html><html><head></head><body>${request.html}</body></html>`).document.body!;
        body.normalize();
        const markdown = turndown.turndown(body);
        if (!markdown.startsWith(splitMark)) throw new Error('the second part of a split page lost its mark');
        port.postMessage({ id: request.id, kind: 'blocks', markdown: markdown.slice(splitMark.length) } satisfies ExtractorResponse);
        return;
      }
      const { document } = parseHTML(request.html);
      for (const element of document.querySelectorAll('script, style, noscript, template, svg')) element.remove();
      let baseUrl = request.baseUrl;
      const base = document.querySelector('base[href]')?.getAttribute('href');
      if (base) {
        try {
          baseUrl = new URL(base, request.baseUrl).href;
        } catch {
          // Keep the page's own URL.
        }
      }
      absolutize(document, baseUrl);
      const body = document.body;
      const textChars = (body?.textContent ?? '').replace(/\s+/g, ' ').trim().length;
      const pageTitle = document.querySelector('title')?.textContent?.trim() || undefined;
      // Elements, not HTML text: turndown converts a node as it is, so nothing is serialised and parsed again.
      let content: DomElement | undefined;
      let title = pageTitle;
      let extracted: 'main content (Readability)' | 'full page' = 'full page';
      if (request.mainContent && textChars > 0) {
        const article = new Readability(document, { charThreshold: 200, serializer: (element: DomElement) => element }).parse();
        if (article?.content) {
          content = article.content;
          title = article.title?.trim() || pageTitle;
          extracted = 'main content (Readability)';
        }
      }
      if (content === undefined) {
        // Readability changes the document it reads; the full page is parsed again.
        const again = request.mainContent ? parseHTML(request.html).document : document;
        if (again !== document) {
          for (const element of again.querySelectorAll('script, style, noscript, template, svg')) element.remove();
          absolutize(again, baseUrl);
        }
        content = again.body ?? undefined;
      }
      // linkedom may split a text at entities ("a &lt;b&gt;" into two nodes): joined, as a parser would give them, so turndown escapes the same.
      content?.normalize();
      const tail = content && request.splitTail !== undefined && !request.html.includes(splitMark) ? splitTail(document, content, request.splitTail) : undefined;
      // The tail goes out first: the second worker converts it while this one converts the head.
      if (tail !== undefined) port.postMessage({ id: request.id, kind: 'tail', html: tail } satisfies ExtractorResponse);
      let markdown = content ? turndown.turndown(content) : '';
      if (tail !== undefined) {
        if (!markdown.endsWith(splitMark)) throw new Error('the first part of a split page lost its mark');
        markdown = markdown.slice(0, -splitMark.length);
      }
      const response: ExtractorResponse = { id: request.id, kind: 'page', markdown, split: tail !== undefined, extracted, textChars, ...(title !== undefined ? { title } : {}) };
      port.postMessage(response);
    } catch (error) {
      port.postMessage({ id: request.id, kind: 'error', message: error instanceof Error ? error.message : String(error) } satisfies ExtractorResponse);
    }
  });
}

export const EXTRACTOR_WORKER_SOURCE = `(${extractorWorkerMain.toString()})();`;
