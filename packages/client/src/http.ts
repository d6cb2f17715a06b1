import type { paths } from './generated/openapi';

/**
 * The typed requests under SceneStudioClient, written here rather than taken from a library so
 * that the published package needs nothing but Node: a partner installs one tarball, with no
 * dependency tree to audit or to fetch. The shape is openapi-fetch's (`raw.GET(path, { params,
 * body, signal })` answering `{ data, error, response }`), checked against the generated `paths`.
 */
export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

type Defined<T> = Exclude<T, undefined>;

/** The routes that answer method `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: [Defined<paths[P][M]>] extends [never] ? never : P;
}[keyof paths];

type Op<P extends keyof paths, M extends HttpMethod> = Defined<paths[P][M]>;
type RequestParams<O> = O extends { parameters: infer X } ? Pick<X, Extract<keyof X, 'path' | 'query' | 'header'>> : never;
type Body<O> = O extends { requestBody: { content: infer C } }
  ? C[keyof C]
  : O extends { requestBody?: { content: infer C } }
    ? C[keyof C]
    : never;
type SuccessStatus = 200 | 201 | 202 | 204;
type Json<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
type Data<O> = O extends { responses: infer R }
  ? { [S in Extract<keyof R, SuccessStatus>]: Json<R[S]> }[Extract<keyof R, SuccessStatus>]
  : never;

export interface ApiRequest<O> {
  params?: RequestParams<O>;
  /** A JSON body, or FormData (sent as multipart/form-data). */
  body?: Body<O> | FormData;
  signal?: AbortSignal;
}

/** `data` for a 2xx answer (undefined for 204), else `error`: the parsed problem, or the raw text. */
export interface ApiResult<T> {
  data?: T;
  error?: unknown;
  /** The request as sent. */
  request: Request;
  response: Response;
}

export interface ApiClient {
  GET<P extends PathsWith<'get'>>(path: P, init?: ApiRequest<Op<P, 'get'>>): Promise<ApiResult<Data<Op<P, 'get'>>>>;
  POST<P extends PathsWith<'post'>>(path: P, init?: ApiRequest<Op<P, 'post'>>): Promise<ApiResult<Data<Op<P, 'post'>>>>;
  PATCH<P extends PathsWith<'patch'>>(path: P, init?: ApiRequest<Op<P, 'patch'>>): Promise<ApiResult<Data<Op<P, 'patch'>>>>;
  DELETE<P extends PathsWith<'delete'>>(path: P, init?: ApiRequest<Op<P, 'delete'>>): Promise<ApiResult<Data<Op<P, 'delete'>>>>;
}

export interface ApiClientOptions {
  baseUrl: string;
  headers: Record<string, string>;
  /** Default: the global fetch, looked up per request. */
  fetch?: typeof fetch;
}

type Untyped = { params?: { path?: object; query?: object; header?: object }; body?: unknown; signal?: AbortSignal };

export function createApiClient(options: ApiClientOptions): ApiClient {
  const send = async (method: string, path: string, init: Untyped = {}): Promise<ApiResult<never>> => {
    const pathParams = (init.params?.path ?? {}) as Record<string, unknown>;
    let url = options.baseUrl + path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathParams[name])));
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(init.params?.query ?? {})) {
      if (value !== undefined && value !== null) query.append(key, String(value));
    }
    if (query.toString()) url += `?${query.toString()}`;
    const headers = new Headers(options.headers);
    for (const [key, value] of Object.entries(init.params?.header ?? {})) {
      if (value !== undefined && value !== null) headers.set(key, String(value));
    }
    let body: string | FormData | undefined;
    // FormData: fetch writes the multipart content type with its boundary.
    if (init.body instanceof FormData) body = init.body;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers.set('content-type', 'application/json');
    }
    // The Request is part of every result, and so stays reachable until its answer is read: Node's
    // fetch follows the caller's signal through the Request's own AbortController, which only the
    // Request holds, so a Request collected mid-flight (garbage collection under load) would let
    // a timed-out attempt hang instead of aborting.
    const request = new Request(url, { method, headers, body, signal: init.signal });
    const response = await (options.fetch ?? globalThis.fetch)(request);
    if (response.ok) {
      if (response.status === 204 || response.headers.get('content-length') === '0') {
        await response.body?.cancel();
        return { data: undefined, request, response };
      }
      return { data: (await response.json()) as never, request, response };
    }
    // A problem document as JSON; anything else (a proxy's page) as its text.
    const text = await response.text();
    try {
      return { error: JSON.parse(text) as unknown, request, response };
    } catch {
      return { error: text, request, response };
    }
  };
  return {
    GET: (path, init) => send('GET', path, init),
    POST: (path, init) => send('POST', path, init),
    PATCH: (path, init) => send('PATCH', path, init),
    DELETE: (path, init) => send('DELETE', path, init),
  };
}
