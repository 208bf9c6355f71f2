// A fetch for unit tests: records every request and answers from a script, one answer per
// request (the last one repeats), so retries, keys and pages are checked without a server.

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

export type Answer = Response | ((req: RecordedRequest) => Response | Promise<Response>);

export interface FakeFetch {
  fetch: typeof fetch;
  requests: RecordedRequest[];
}

export function fakeFetch(...answers: Answer[]): FakeFetch {
  const requests: RecordedRequest[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req: RecordedRequest = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : undefined,
    };
    requests.push(req);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)];
    if (!answer) throw new Error('fakeFetch: no answer scripted');
    return typeof answer === 'function' ? answer(req) : answer.clone();
  };
  return { fetch: fetchImpl as typeof fetch, requests };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

export const errorAnswer = (
  status: number,
  code: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Response =>
  json(status, { error: { code, message: `${code} happened`, step: 'test', ...extra } }, headers);

/** A sleep that records the waits and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
