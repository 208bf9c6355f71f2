// Requests so malformed that Node's HTTP parser rejects them (garbage header bytes, broken
// chunking, oversized headers) never reach express. Node would answer them with a bare status
// line; this answers in the standard error body instead, so even those get a 4xx with a body.
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, type Logger } from '@lattice/core';

const STEP = 'http_parsing';

function answerFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'headers_too_large', STEP, 'Request headers are too large');
    case 'HPE_URI_TOO_LONG':
      return new ApiError(414, 'uri_too_long', STEP, 'Request URI is too long');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'request_timeout', STEP, 'The request was not received in time');
    default:
      return new ApiError(400, 'bad_request', STEP, 'Malformed HTTP request');
  }
}

export function attachClientErrorHandler(server: Server, logger: Logger): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = answerFor(err.code);
    logger.debug({ code: err.code, status: answer.status }, 'malformed HTTP request refused');
    const body = JSON.stringify(answer.toBody());
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
