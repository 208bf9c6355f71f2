import { ApiError } from '@lattice/core';
import { loadSchemaRegistry, type RouteDef } from '@lattice/http';
import { expect } from 'chai';
import { toolRequest } from './tool-dispatch.ts';

const schemas = loadSchemaRegistry();
const publish = {
  method: 'POST',
  path: '/realtime/messages',
  request: { body: 'realtime-message-publish-management', headers: 'realtime-message-publish-headers' },
} as RouteDef;

describe('tool call → REST request', () => {
  it('sends the header arguments as request headers, never in the body', () => {
    const rest = toolRequest(
      publish,
      {
        channel: 'chat:a',
        data: { n: 1 },
        Prefer: 'return=representation, wait=2',
        'Idempotency-Key': 'k-1',
      },
      schemas,
    );
    expect(rest).to.deep.equal({
      method: 'POST',
      path: '/realtime/messages',
      body: JSON.stringify({ channel: 'chat:a', data: { n: 1 } }),
      headers: { Prefer: 'return=representation, wait=2', 'Idempotency-Key': 'k-1' },
    });
    expect(toolRequest(publish, { channel: 'chat:a', data: 1 }, schemas).headers).to.deep.equal({});
  });

  it('refuses a header argument no request could carry, naming it as REST names its headers', () => {
    let refused: unknown;
    try {
      toolRequest(
        publish,
        { channel: 'chat:a', data: 1, Prefer: 'a\r\nX-Evil: 1', 'Idempotency-Key': 7 },
        schemas,
      );
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(ApiError);
    expect((refused as ApiError).toBody()).to.deep.include({
      error: {
        code: 'validation_error',
        message: 'Request validation failed',
        step: 'validation',
        fields: [
          { path: 'headers.Idempotency-Key', message: 'must be a string of printable ASCII characters' },
          { path: 'headers.Prefer', message: 'must be a string of printable ASCII characters' },
        ],
      },
    });
  });
});
