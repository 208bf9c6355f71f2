import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createRedactor, parseRedactionPath } from './log-redaction.ts';
import { createLogger } from './logger.ts';

const C = '[x]';

describe('log redaction', () => {
  describe('paths', () => {
    it('reads dotted keys, wildcards and quoted keys', () => {
      expect(parseRedactionPath('token')).to.deep.equal(['token']);
      expect(parseRedactionPath('*.apiKey')).to.deep.equal(['*', 'apiKey']);
      expect(parseRedactionPath('req.headers["x-api-key"]')).to.deep.equal(['req', 'headers', 'x-api-key']);
    });

    it('refuses what it cannot read', () => {
      for (const bad of ['', 'a..b', 'a.["b"', 'a.'])
        expect(() => parseRedactionPath(bad), bad).to.throw(/bad redaction path/);
    });
  });

  describe('censoring', () => {
    const redact = createRedactor(
      ['token', 'headers.authorization', 'req.headers["x-api-key"]', '*.secret'],
      C,
    );

    it('censors a top-level key, a nested path, a quoted key and a wildcard, whatever the value', () => {
      const out = redact({
        token: { nested: 'object' },
        headers: { authorization: 'Bearer a', accept: 'json' },
        req: { headers: { 'x-api-key': 'k', host: 'h' } },
        mail: { secret: 's', to: 't' },
        list: [{ secret: 'in an array: not a path' }],
      });
      expect(out).to.deep.equal({
        token: C,
        headers: { authorization: C, accept: 'json' },
        req: { headers: { 'x-api-key': C, host: 'h' } },
        mail: { secret: C, to: 't' },
        list: [{ secret: 'in an array: not a path' }],
      });
    });

    it('leaves keys beside and below a path alone (both sides of each path)', () => {
      const input = {
        tokens: 't',
        authorization: 'top level: not a path here',
        headers: { authorizationx: 'a' },
        req: { headers: { authorization: 'only x-api-key is a path here' } },
        deep: { inner: { secret: 'two levels: the wildcard is one' } },
        secret: 'top level: the wildcard needs a parent',
      };
      expect(redact(input)).to.equal(input);
    });

    it('never modifies the caller’s objects, and copies only along a censored path', () => {
      const untouched = { a: 1 };
      const headers = { authorization: 'Bearer a' };
      const input = { headers, untouched, n: 1 };
      const out = redact(input);
      expect(input.headers.authorization).to.equal('Bearer a');
      expect(out).to.not.equal(input);
      expect(out.headers).to.not.equal(headers);
      expect(out.untouched).to.equal(untouched);
    });

    it('keeps an Error an Error (message, stack, class) when a property of it is censored', () => {
      class TokenError extends Error {}
      const err = Object.assign(new TokenError('boom'), { secret: 's', code: 'E1' });
      const out = redact({ err }).err as TokenError & { secret: string; code: string };
      expect(out).to.be.instanceOf(TokenError);
      expect(out.message).to.equal('boom');
      expect(out.stack).to.equal(err.stack);
      expect(out.secret).to.equal(C);
      expect(out.code).to.equal('E1');
      expect(err.secret).to.equal('s');
    });

    it('stops at a depth bound on cyclic objects', () => {
      const deep = createRedactor(['*.*.*.*.*.*.*.*.*.*.*.*.token'], C);
      const a: Record<string, unknown> = { token: 't' };
      a.self = a;
      expect(() => deep({ a })).to.not.throw();
    });
  });

  describe('the logger', () => {
    function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
      const lines: Record<string, unknown>[] = [];
      const stream = new Writable({
        write(chunk, _enc, done) {
          for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
          done();
        },
      });
      return { lines, stream };
    }

    it('censors every configured path in a line’s fields and in child bindings', () => {
      const { lines, stream } = capture();
      const log = createLogger({ name: 't', level: 'info', destination: stream });
      log.child({ token: 'child-binding' }).info(
        {
          authorization: 'Bearer lmt_1',
          headers: { authorization: 'Bearer lmt_2' },
          req: { headers: { authorization: 'a', 'x-public-key': 'lpk_1', 'x-api-key': 'lmk_1', host: 'h' } },
          secret: 's',
          apiKey: 'k',
          made: { apiKey: 'k', token: 't', secret: 's', owner_token: 'o', product_id: 'p' },
          requestId: 'req_1',
        },
        'line',
      );
      expect(lines).to.have.length(1);
      const line = lines[0]!;
      expect(line.token).to.equal('[redacted]');
      expect(line.authorization).to.equal('[redacted]');
      expect(line.headers).to.deep.equal({ authorization: '[redacted]' });
      expect(line.req).to.deep.equal({
        headers: {
          authorization: '[redacted]',
          'x-public-key': '[redacted]',
          'x-api-key': '[redacted]',
          host: 'h',
        },
      });
      expect(line.secret).to.equal('[redacted]');
      expect(line.apiKey).to.equal('[redacted]');
      expect(line.made).to.deep.equal({
        apiKey: '[redacted]',
        token: '[redacted]',
        secret: '[redacted]',
        owner_token: '[redacted]',
        product_id: 'p',
      });
      expect(line.requestId).to.equal('req_1');
      expect(JSON.stringify(line)).to.not.match(/lmt_|lpk_|lmk_|child-binding/);
    });

    it('still serializes an error logged under err', () => {
      const { lines, stream } = capture();
      createLogger({ name: 't', level: 'info', destination: stream }).error(
        { err: Object.assign(new Error('boom'), { token: 'lmt_x' }) },
        'failed',
      );
      const err = lines[0]!.err as Record<string, unknown>;
      expect(err.message).to.equal('boom');
      expect(err.type).to.equal('Error');
      expect(err.stack).to.be.a('string');
      expect(JSON.stringify(lines[0])).to.not.include('lmt_x');
    });
  });
});
