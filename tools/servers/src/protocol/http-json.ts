import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { TestServerError } from "../errors/test-server-error.js";

/** Options of {@link httpJson}. */
export interface HttpJsonOptions {
  /** @default "GET" */
  readonly method?: "GET" | "POST";
  /** Sent as a JSON body. */
  readonly body?: unknown;
  /** @default 2000 */
  readonly timeoutMs?: number;
  /** More request headers; a `content-type` here replaces `application/json` for the body. */
  readonly headers?: Readonly<Record<string, string>>;
  /** For `https://` URLs: the CA to trust, and a client certificate and key to present. */
  readonly tls?: { readonly ca: string; readonly cert?: string; readonly key?: string };
}

/** Makes one HTTP request without keep-alive and resolves with the parsed JSON body of a 2xx answer. */
export function httpJson(url: string, options: HttpJsonOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = url.startsWith("https:") ? httpsRequest : httpRequest;
    const req = request(
      url,
      {
        ...options.tls,
        method: options.method ?? "GET",
        agent: false,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }), ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("error", reject);
        res.once("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(new TestServerError(`${url} answered HTTP ${status}: ${text.slice(0, 500)}`));
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch (error) {
            reject(new TestServerError(`${url} answered invalid JSON: ${text.slice(0, 500)}`, { cause: error }));
          }
        });
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new TestServerError(`${url} did not answer within ${timeoutMs} ms.`)));
    req.once("error", reject);
    req.end(body);
  });
}
