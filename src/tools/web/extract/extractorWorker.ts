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

export interface ExtractorRequest {
  readonly id: number;
  readonly html: string;
  readonly baseUrl: string;
  readonly mainContent: boolean;
}

export type ExtractorResponse =
  | { readonly id: number; readonly ok: true; readonly markdown: string; readonly title?: string; readonly extracted: 'main content (Readability)' | 'full page'; readonly textChars: number }
  | { readonly id: number; readonly ok: false; readonly message: string };

export function extractorWorkerMain(): void {
  const threads = process.getBuiltinModule('node:worker_threads');
  const { createRequire } = process.getBuiltinModule('node:module');
  const port = threads.parentPort!;
  const modules = (threads.workerData as { modules: ExtractorModules }).modules;
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
    normalize(): void;
    getAttribute(name: string): string | null;
    setAttribute(name: string, value: string): void;
    remove(): void;
    readonly textContent: string | null;
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

  port.on('message', (request: ExtractorRequest) => {
    try {
      const { parseHTML, Readability, turndown } = libraries();
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
      const markdown = (content ? turndown.turndown(content) : '')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
      const response: ExtractorResponse = { id: request.id, ok: true, markdown, extracted, textChars, ...(title !== undefined ? { title } : {}) };
      port.postMessage(response);
    } catch (error) {
      port.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies ExtractorResponse);
    }
  });
}

export const EXTRACTOR_WORKER_SOURCE = `(${extractorWorkerMain.toString()})();`;
