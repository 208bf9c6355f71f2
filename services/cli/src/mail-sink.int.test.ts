import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@lattice/core';
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { MAIL_SINK_MAX_BYTES, type RunningMailSink, startMailSink } from './mail-sink.ts';

describe('local mailbox (SMTP sink)', function () {
  this.timeout(30_000);
  let sink: RunningMailSink;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lattice-mailbox-'));
    sink = await startMailSink({
      host: '127.0.0.1',
      port: 0,
      dir,
      logger: createLogger({ name: 't', level: 'silent' }),
    });
  });
  after(async () => {
    await sink?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const transport = () =>
    nodemailer.createTransport({ host: '127.0.0.1', port: sink.port, secure: false, ignoreTLS: true });

  it('keeps each message as an .eml file with its envelope, and answers 250 with its name', async () => {
    const info = await transport().sendMail({
      from: 'Ann <ann@demo.lattice.test>',
      to: ['bob@example.com', 'cat@example.com'],
      subject: 'Hello',
      text: 'Hi there',
    });
    expect(info.response).to.match(/^250 .*queued as (\S+)/);
    const id = /queued as (\S+)/.exec(info.response)![1];
    const files = await readdir(dir);
    expect(files).to.include(`${id}.eml`);
    const text = await readFile(join(dir, `${id}.eml`), 'utf8');
    expect(text).to.match(/^X-Lattice-Mail-From: ann@demo\.lattice\.test\r\n/);
    expect(text).to.include('X-Lattice-Rcpt-To: bob@example.com, cat@example.com');
    expect(text).to.include('Subject: Hello');
    expect(text).to.include('Hi there');
  });

  it(`refuses a message over ${MAIL_SINK_MAX_BYTES} bytes with 552 and keeps nothing`, async () => {
    const before = (await readdir(dir)).length;
    const big = 'x'.repeat(MAIL_SINK_MAX_BYTES + 1);
    const err = await transport()
      .sendMail({ from: 'ann@demo.lattice.test', to: 'bob@example.com', subject: 'big', text: big })
      .catch((e: { responseCode?: number }) => e);
    expect((err as { responseCode?: number }).responseCode).to.equal(552);
    expect((await readdir(dir)).length).to.equal(before);
  });
});
