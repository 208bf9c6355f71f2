import type { Writable } from 'node:stream';
import { expect } from 'chai';
import * as ws from 'ws';

// ws's frame parser (exported by the package, not declared by @types/ws).
type ReceiverClass = new (options: { isServer: boolean; maxPayload: number }) => Writable;
const { Receiver } = ws as unknown as { Receiver: ReceiverClass };

import { textFrame } from './channel-hub.ts';

/** Decodes frames as a `ws` client does (unmasked frames from a server). */
function decode(frame: Buffer): Promise<{ text: string; binary: boolean }> {
  return new Promise((resolve, reject) => {
    const receiver = new Receiver({ isServer: false, maxPayload: 0 });
    receiver.on('message', (data: Buffer, binary: boolean) => resolve({ text: data.toString(), binary }));
    receiver.on('error', reject);
    receiver.write(frame);
  });
}

describe('prepared push frames', () => {
  // Each side of the 7-bit, 16-bit and 64-bit length encodings.
  for (const length of [0, 1, 125, 126, 65_535, 65_536, 100_000]) {
    it(`frames a ${length}-byte text as ws reads it`, async () => {
      const text = 'x'.repeat(length);
      const frame = textFrame(Buffer.from(text));
      const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
      expect(frame.length).to.equal(header + length);
      expect(await decode(frame)).to.deep.equal({ text, binary: false });
    });
  }
});
