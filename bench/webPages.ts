/** HTML pages for the web tests and the web bench, built from realistic article markup. */

/** One section of an article: a heading, paragraphs with links and emphasis, a list, a table and code. */
export function articleSection(n: number): string {
  return `
<h2 id="s${n}">Section ${n}: configuring the resolver</h2>
<p>The resolver reads <a href="/docs/resolver-${n}">its settings</a> once at start-up and again whenever the file changes. In section ${n} we look at
<em>why</em> the cache matters, and how <strong>negative answers</strong> are kept for a shorter time than positive ones. Most deployments never change the defaults.</p>
<p>When a lookup fails, the client retries with the next server in the list. A timeout of two seconds per server is a common choice; longer timeouts hide outages, shorter ones cause spurious failures on loaded networks.</p>
<ul>
  <li>Keep the cache small on devices with little memory (item ${n}.1).</li>
  <li>Prefer TCP for answers larger than 512 bytes (item ${n}.2).</li>
  <li>Log the server that answered, not only the question (item ${n}.3).</li>
</ul>
<table>
  <thead><tr><th>setting</th><th>default</th><th>meaning</th></tr></thead>
  <tbody>
    <tr><td>timeout</td><td>${n % 5}s</td><td>per server</td></tr>
    <tr><td>attempts</td><td>2</td><td>before giving up</td></tr>
  </tbody>
</table>
<pre><code class="language-ts">const answer = await resolver.lookup("example${n}.test", { all: true });
console.log(answer.map((a) => a.address).join(", "));
</code></pre>
`;
}

/** A whole page: navigation, the article of `sections` sections, a footer, scripts and styles around it. */
export function articlePage(sections: number, title = 'Resolver guide'): string {
  const body = Array.from({ length: sections }, (_, i) => articleSection(i + 1)).join('\n');
  return `<!doctype html><html><head><title>${title}</title><style>body{font-family:sans-serif}</style>
<script>window.analytics = { track() {} };</script></head><body>
<nav><a href="/">Home</a> | <a href="/docs">Docs</a> | <a href="/blog">Blog</a></nav>
<main><article><h1>${title}</h1>${body}</article></main>
<footer><p>Footer links: <a href="/privacy">privacy</a>, <a href="/terms">terms</a>. Copyright notice of the example site.</p></footer>
<script>console.log("done")</script></body></html>`;
}

/** Article HTML of at least `bytes` bytes. */
export function articleOfSize(bytes: number): string {
  const one = articleSection(1).length;
  return articlePage(Math.ceil(bytes / one));
}

/** A page that renders with JavaScript: an empty root and a large bundle. */
export function scriptOnlyPage(): string {
  return `<!doctype html><html><head><title>App</title><script>${'var a=1;'.repeat(20_000)}</script></head><body><div id="root"></div><noscript>Enable JavaScript to run this app.</noscript><script src="/bundle.js"></script></body></html>`;
}

/** A page whose HTML is mostly CSS: big style blocks, inline styles on every element, and a short text. */
export function cssHeavyPage(): string {
  const rules = Array.from({ length: 20_000 }, (_, i) => `.c${i} > .d${i}:hover::after{content:"${i}";color:#${(i % 4096).toString(16).padStart(3, '0')};margin:${i % 7}px}`).join('\n');
  const divs = Array.from({ length: 2_000 }, (_, i) => `<div class="c${i}" style="display:flex;padding:${i % 9}px;background:linear-gradient(90deg,#fff,#eee)"><span style="color:red">cell ${i}</span></div>`).join('');
  return `<!doctype html><html><head><title>Styled</title><style>${rules}</style></head><body><h1>Styled page</h1><p>The real text of the styled page is this paragraph, which should survive the conversion.</p>${divs}<style>${rules}</style></body></html>`;
}
