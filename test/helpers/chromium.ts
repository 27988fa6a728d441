// Debian's Chromium driven by playwright-core (no browser download), for tests of the browser SDK against
// the real service on a real loopback port.
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { type Harness, MutableClock } from './harness.ts';

/** The wall clock: the browser stamps occurred_at with real time. */
export class LiveClock extends MutableClock {
  override now() {
    return new Date();
  }
}

/** Makes the harness's service listen on a loopback port; answers its origin. */
export async function listenOnLoopback(h: Harness): Promise<string> {
  await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(h.service.app.server.address() as net.AddressInfo).port}`;
}

/** A headless Chromium with a profile of its own; close() also removes the profile. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
