// Drives the dead-letter page in the distribution's headless Chromium:
// sign in through the form, see the parked row with its reason, redrive it, see it leave the page.
// Usage: node dead_letter.mjs <base url> <team> <admin token> <reason shown on the row>
import { chromium } from 'playwright-core';

const [base, team, token, reason] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const fail = async (message) => { console.error(message); await browser.close(); process.exit(1); };
try {
  const page = await browser.newPage();
  const url = `${base}/admin/teams/${team}`;
  const first = await page.goto(url);
  if (first.status() !== 401) await fail(`expected the login form (401), got ${first.status()}`);
  if (page.url().includes(token)) await fail('the token appeared in a URL');
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
  if (page.url().includes(token)) await fail('the token appeared in a URL');
  const row = page.locator('tr[data-row]');
  await row.first().waitFor({ timeout: 10000 });
  if (await row.count() !== 1) await fail(`expected one parked row, saw ${await row.count()}`);
  const text = await row.first().innerText();
  if (!text.includes(reason)) await fail(`the row does not say why (${reason}): ${text}`);
  await row.first().locator('button[data-action=redrive]').click();
  await page.locator('#status').filter({ hasText: 'Redriven' }).waitFor({ timeout: 10000 });
  await page.waitForLoadState('load');
  await page.locator('#empty').waitFor({ timeout: 10000 });
  console.log('redriven from the page');
  await browser.close();
} catch (e) {
  await fail(String(e && e.stack || e));
}
