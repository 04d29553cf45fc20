#!/usr/bin/env node
/* report/web/check-report.js REPORT.html [SCREENSHOT.png]
 *
 * Opens a fabsim report in headless Chromium (Debian's /usr/bin/chromium,
 * driven by playwright-core from this folder's pinned packages), with the
 * network cut off, and checks that every chart rendered and that the page
 * logged no error. Prints one line per check and "N passed, N failed".
 * Exit 0 when all passed; 77 when Chromium is not installed (a skip).
 */
'use strict';
const fs = require('fs');
const path = require('path');

const file = process.argv[2];
const shot = process.argv[3];
const exe = process.env.CHROMIUM || '/usr/bin/chromium';
if (!file) {
  console.error('usage: check-report.js REPORT.html [SCREENSHOT.png]');
  process.exit(2);
}
if (!fs.existsSync(exe)) {
  console.log(`SKIP: ${exe} not found (install Debian's chromium: make deps)`);
  process.exit(77);
}
let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch (e) {
  console.log('SKIP: playwright-core not installed in report/web (make deps runs npm ci)');
  process.exit(77);
}

let passed = 0, failed = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (ok) passed++; else failed++;
}

(async () => {
  const browser = await chromium.launch({
    executablePath: exe,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
           '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file:') || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    requests.push(u);
    return route.abort();
  });
  await page.goto('file://' + path.resolve(file));
  await page.waitForFunction(() => window.__fabsim && window.__fabsim.done, null, { timeout: 60000 });
  const st = await page.evaluate(() => window.__fabsim);
  const svgs = await page.evaluate(() => [...document.querySelectorAll('.vega-target')].map((t) => !!t.querySelector('svg')));
  const findings = await page.evaluate(() => [...document.querySelectorAll('.findings li')].map((l) => l.textContent));
  const nRan = await page.evaluate(() => JSON.parse(document.getElementById('fabsim-data').textContent)
    .labs.flatMap((l) => l.scenarios).filter((s) => s.status === 'ok').length);
  check(st.charts > 0 || nRan === 0, `page asked for charts (${st.charts}; ${nRan} runs)`);
  check(st.rendered === st.charts, `every chart rendered (${st.rendered}/${st.charts})`);
  check(svgs.length === st.charts && svgs.every(Boolean), 'every chart container holds an SVG');
  check(st.errors.length === 0, 'no chart errors' + (st.errors.length ? ': ' + st.errors.join(' | ') : ''));
  check(errors.length === 0, 'no console errors' + (errors.length ? ': ' + errors.join(' | ') : ''));
  check(requests.length === 0, 'no network requests (self-contained)' + (requests.length ? ': ' + requests.join(' ') : ''));
  // FABSIM_REQUIRE_CHARTS=a,b: each of these lab.yaml chart types rendered at least once.
  for (const k of (process.env.FABSIM_REQUIRE_CHARTS || '').split(',').filter(Boolean))
    check((st.kinds || {})[k] > 0, `chart type ${k} rendered (${(st.kinds || {})[k] || 0})`);
  const badLinks = await page.evaluate(() => [...document.querySelectorAll('a[href]')]
    .map((a) => a.getAttribute('href')).filter((h) => !/^(https?:|mailto:|#)/i.test(h) && /^[^/?#]*:/.test(h)));
  check(badLinks.length === 0, 'links are http(s), mailto or relative' + (badLinks.length ? ': ' + badLinks.join(' ') : ''));
  // The guides' Markdown is rendered (marked): every table of a guide is an
  // HTML table, no line of raw pipes or comment marks shows as text.
  const md = await page.evaluate(() => {
    const labs = JSON.parse(document.getElementById('fabsim-data').textContent).labs;
    const want = labs.reduce((n, l) => n + ((l.markdown || '').match(/^\|[-| :]+\|\s*$/gm) || []).length, 0);
    const divs = [...document.querySelectorAll('.md')];
    const raw = divs.some((d) => /(^|\n)\s*\|[^\n]*\|\s*(\n|$)/.test(d.innerText) && !d.querySelector('table')) ||
      divs.some((d) => d.innerText.includes('<!--'));
    return { want, got: divs.reduce((n, d) => n + d.querySelectorAll('table').length, 0), raw };
  });
  check(md.got === md.want && !md.raw, `guides' Markdown tables rendered as tables (${md.got}/${md.want}), no raw pipes or marks`);
  // A throughput chart whose events are decades apart has a log time axis.
  const tput = await page.evaluate(() => [...document.querySelectorAll('.vega-target')]
    .filter((t) => /throughput/i.test((t.closest('figure, .chart') || t.parentElement).textContent))
    .map((t) => [...t.querySelectorAll('text')].map((x) => x.textContent).filter((s) => /^time \(/.test(s))[0] || ''));
  const spans = await page.evaluate(() => JSON.parse(document.getElementById('fabsim-data').textContent).labs
    .some((l) => l.id === 'subnet_manager'));
  if (spans) check(tput.some((s) => /log/.test(s)), `the failure lab's throughput chart has a log time axis (${tput.join('; ')})`);
  // Offered load per spine link: a bar is red exactly when its load is over
  // 101 % (adaptive routing's 100.04 % is a full link, not a hot one): the
  // fill of each bar against the value its ARIA label carries.
  const offered = await page.evaluate(() => [...document.querySelectorAll('.chart')]
    .filter((c) => /^Offered load per spine link/.test((c.querySelector('.cap') || {}).textContent || ''))
    .flatMap((c) => [...c.querySelectorAll('path[aria-label]')]
      .map((p) => ({ label: p.getAttribute('aria-label'), fill: (p.getAttribute('fill') || '').toLowerCase() }))
      .filter((b) => /offered load \(%\): /.test(b.label))
      .map((b) => ({ v: parseFloat(b.label.replace(/.*offered load \(%\): ([-0-9.,]+).*/, '$1').replace(/,/g, '')), red: b.fill === '#d62728' }))));
  if (offered.length) {
    const wrong = offered.filter((b) => b.red !== (b.v > 101));
    check(wrong.length === 0, `offered-load bars red exactly above 101 % (${offered.length} bars, ${offered.filter((b) => b.red).length} red` +
      (wrong.length ? `; wrong: ${wrong.slice(0, 5).map((b) => b.v + (b.red ? ' red' : ' blue')).join(', ')}` : '') + ')');
  }
  // One unit for rates in every chart (Gbit/s; nccl-tests' GB/s is
  // converted), and pause time per link, never a sum over links.
  const axisText = await page.evaluate(() => [...document.querySelectorAll('.vega-target svg text')].map((t) => t.textContent));
  const badUnit = axisText.filter((t) => /\bGB\/s\b|\bGbps\b/.test(t));
  check(badUnit.length === 0, 'rates in one unit (Gbit/s) on every chart' + (badUnit.length ? ': ' + [...new Set(badUnit)].slice(0, 5).join(' | ') : ''));
  const summed = axisText.filter((t) => /paused \(us\)|paused_us_total|pause time \(sum/i.test(t));
  check(summed.length === 0, 'pause time per link, not summed over links' + (summed.length ? ': ' + [...new Set(summed)].join(' | ') : ''));
  // A sweep's report plots each metric against the swept parameter.
  const mode = await page.evaluate(() => JSON.parse(document.getElementById('fabsim-data').textContent).mode);
  if (mode === 'sweep') check((st.kinds || {}).sweep > 0, `the sweep's metric-vs-parameter chart rendered (${(st.kinds || {}).sweep || 0})`);
  const nFindings = await page.evaluate(() => JSON.parse(document.getElementById('fabsim-data').textContent).findings.length);
  check(findings.length === nFindings, `every headline finding shown (${findings.length}/${nFindings})`);
  if (shot) {
    await page.screenshot({ path: shot, fullPage: false });
    // What the picture shows, beside it: make test compares it with the
    // current labs, so a stale README picture fails (check_report.sh).
    const what = await page.evaluate(() => {
      const d = JSON.parse(document.getElementById('fabsim-data').textContent);
      const v = {};
      for (const l of d.labs) if (l.verdict) v[l.id] = { verdict: l.verdict, claims: (l.claims || []).map((c) => c.verdict) };
      return { scenarios: d.labs.flatMap((l) => l.scenarios).length, verdicts: v };
    });
    fs.writeFileSync(shot.replace(/\.png$/, '') + '.json', JSON.stringify(what, null, 1) + '\n');
    console.log(`screenshot: ${shot}`);
  }
  await browser.close();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.log('FAIL: ' + e);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
