import { ContentExtractorError } from '../../../src/tools/web/contract';
import { WorkerContentExtractor } from '../../../src/tools/web/extract/contentExtractor';
import { articleOfSize, articlePage, cssHeavyPage, scriptOnlyPage } from '../../../bench/webPages';

const extractors: WorkerContentExtractor[] = [];
afterAll(() => Promise.all(extractors.map((e) => e.dispose())));

function extractor(): WorkerContentExtractor {
  const created = new WorkerContentExtractor();
  extractors.push(created);
  return created;
}

const OPTIONS = { baseUrl: 'https://docs.example.com/guide/page.html', mainContent: true, deadlineMs: 20_000 };

describe('IContentExtractor (worker thread)', () => {
  test('main content as Markdown: atx headings, lists, GFM tables, fenced code, absolute links; navigation and footer left out', async () => {
    const document = await extractor().htmlToMarkdown(articlePage(3), OPTIONS);
    expect(document.title).toBe('Resolver guide');
    expect(document.extracted).toBe('main content (Readability)');
    expect(document.markdown).toContain('## Section 2: configuring the resolver');
    expect(document.markdown).toContain('[its settings](https://docs.example.com/docs/resolver-2)');
    expect(document.markdown).toMatch(/^- {1,3}Keep the cache small on devices with little memory \(item 1\.1\)\.$/m);
    expect(document.markdown).toContain('| setting | default | meaning |');
    expect(document.markdown).toContain('| timeout | 3s | per server |');
    expect(document.markdown).toContain('```\nconst answer = await resolver.lookup("example1.test", { all: true });');
    expect(document.markdown).not.toContain('Footer links');
    expect(document.markdown).not.toContain('window.analytics');
    expect(document.textChars).toBeGreaterThan(1_000);
  });

  test('the full page keeps navigation and footer; scripts and styles never reach the Markdown', async () => {
    const document = await extractor().htmlToMarkdown(articlePage(2), { ...OPTIONS, mainContent: false });
    expect(document.extracted).toBe('full page');
    expect(document.markdown).toContain('[privacy](https://docs.example.com/privacy)');
    expect(document.markdown).toContain('[Home](https://docs.example.com/)');
    expect(document.markdown).not.toMatch(/analytics|font-family|console\.log\("done"\)/);
  });

  test('one warm worker serves consecutive and concurrent calls; it is ended after the idle time', async () => {
    const warm = extractor();
    warm.idleMs = 200;
    const [a, b] = await Promise.all([warm.htmlToMarkdown(articlePage(1, 'A'), OPTIONS), warm.htmlToMarkdown(articlePage(1, 'B'), OPTIONS)]);
    await warm.htmlToMarkdown(articlePage(1, 'C'), OPTIONS);
    expect([a.title, b.title, warm.startedWorkers]).toEqual(['A', 'B', 1]);
    expect(warm.hasWorker).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(warm.hasWorker).toBe(false);
    expect((await warm.htmlToMarkdown(articlePage(1, 'D'), OPTIONS)).title).toBe('D');
    expect(warm.startedWorkers).toBe(2);
  });

  test('a conversion past its deadline is stopped (the worker is ended) and the next call gets a fresh worker', async () => {
    const slow = extractor();
    const big = articleOfSize(1_500_000);
    const started = Date.now();
    const error = await slow.htmlToMarkdown(big, { ...OPTIONS, deadlineMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentExtractorError);
    expect([(error as ContentExtractorError).code, (error as ContentExtractorError).message]).toEqual(['deadline', 'Converting the page took longer than 0.1 s and was stopped.']);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await slow.htmlToMarkdown(articlePage(1, 'after'), OPTIONS)).title).toBe('after');
    expect(slow.startedWorkers).toBe(2);
  });

  test('an abort rejects with its reason and ends a running conversion', async () => {
    const aborting = extractor();
    const controller = new AbortController();
    const reason = new Error('user stop');
    const pending = aborting.htmlToMarkdown(articleOfSize(1_500_000), { ...OPTIONS, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 30);
    await expect(pending).rejects.toBe(reason);
    expect(aborting.hasWorker).toBe(false);
  });

  test('a script-only page has almost no text; a CSS-heavy page converts quickly to its few lines of text', async () => {
    const shared = extractor();
    const app = await shared.htmlToMarkdown(scriptOnlyPage(), OPTIONS);
    expect(app.textChars).toBeLessThan(50);
    expect(app.markdown).not.toContain('var a=1');
    const css = cssHeavyPage();
    expect(css.length).toBeGreaterThan(1_000_000);
    const started = Date.now();
    const styled = await shared.htmlToMarkdown(css, { ...OPTIONS, deadlineMs: 10_000 });
    expect(styled.markdown).toContain('The real text of the styled page is this paragraph');
    expect(styled.markdown).not.toMatch(/linear-gradient|:hover/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
