// The browser client in real headless Chromium (Debian's, driven by playwright-core), on the demo
// page the gateway serves: it connects, receives, survives a gateway restart and recovers with no
// missing or repeated message; two tabs chat through one channel with presence and typing.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import {
  createGatewayBase,
  type GatewayBase,
  type TestGateway,
  type TestProduct,
} from './gateway/harness.ts';

interface DemoState {
  ready: boolean;
  error: string | null;
  received: Array<{ offset: number; data: { from?: string; text?: unknown } }>;
  events: Array<{ from: string }>;
  states: string[];
  roster?: string[];
}

const demoState = (page: Page) => page.evaluate(() => (globalThis as unknown as { demo: DemoState }).demo);

async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('realtime client in Chromium', function () {
  this.timeout(180_000);
  let h: GatewayBase;
  let product: TestProduct;
  let browser: Browser;
  let gw: TestGateway;

  before(async () => {
    h = await createGatewayBase('rt-browser');
    product = await h.newProduct({ demo: {} });
    gw = await h.startGateway({ settings: { demo: { productId: product.productId } } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  const pageUrl = (name: string) => `${gw.url.replace(/^ws/, 'http')}/demo?name=${name}`;

  async function open(name: string): Promise<Page> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pageUrl(name));
    await until(
      () => demoState(page),
      (s) => s?.ready === true || s?.error !== null || errors.length > 0,
      `${name}'s page ready`,
    );
    expect(errors).to.deep.equal([]);
    expect((await demoState(page)).error).to.equal(null);
    return page;
  }

  it('receives, survives a gateway restart and recovers with no missing or repeated message', async () => {
    const page = await open('alice');
    for (let i = 1; i <= 20; i++) await product.publish('demo:lobby', { from: 'srv', text: i });
    await until(
      () => demoState(page),
      (s) => s.received.length >= 20,
      'the first 20',
    );
    // The gateway restarts on its port (4100 to the page), and messages keep coming meanwhile.
    const settings = gw.settings;
    await gw.close();
    for (let i = 21; i <= 40; i++) await product.publish('demo:lobby', { from: 'srv', text: i });
    gw = await h.startGateway(settings);
    for (let i = 41; i <= 60; i++) await product.publish('demo:lobby', { from: 'srv', text: i });
    const state = await until(
      () => demoState(page),
      (s) => s.received.length >= 60,
      'all 60',
      60_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    const final = await demoState(page);
    expect(final.received.map((m) => m.offset)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(final.received.map((m) => m.data.text)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(state.states).to.include('disconnected');
    expect(final.states.at(-1)).to.equal('connected');
    await page.close();
  });

  it('lets two tabs chat through the channel with presence and typing', async () => {
    const ann = await open('ann');
    const bob = await open('bob');
    await until(
      () => demoState(ann),
      (s) => (s.roster ?? []).includes('ext:bob'),
      "bob in ann's roster",
    );
    expect((await demoState(bob)).roster).to.include.members(['ext:ann', 'ext:bob']);
    // Ann types (a client event for bob) and sends (through the demo's backend, stored).
    await ann.fill('#text', 'hello bob');
    await until(
      () => demoState(bob),
      (s) => s.events.some((e) => e.from === 'ext:ann'),
      'typing reaches bob',
    );
    await ann.press('#text', 'Enter');
    const seen = await until(
      () => demoState(bob),
      (s) => s.received.some((m) => m.data.text === 'hello bob'),
      'the message reaches bob',
    );
    expect(seen.received.find((m) => m.data.text === 'hello bob')?.data.from).to.equal('ann');
    expect(await bob.textContent('#log')).to.include('hello bob');
    // Bob leaves: ann's roster loses him.
    await bob.close();
    await until(
      () => demoState(ann),
      (s) => !(s.roster ?? []).includes('ext:bob'),
      'bob gone from the roster',
    );
    await ann.close();
  });
});
