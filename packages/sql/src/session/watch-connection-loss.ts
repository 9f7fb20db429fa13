/**
 * A signal that aborts the first time `connection` reports an error or its end (either means the server session, and
 * every lock it held, is gone or can no longer be proven). Also keeps an "error" event from being unhandled.
 */
export function watchConnectionLoss(connection: { on(event: "error" | "end", listener: (error?: unknown) => void): unknown }): AbortSignal {
  const controller = new AbortController();
  const lose = (error?: unknown) => controller.abort(error ?? new Error("the connection ended"));
  connection.on("error", lose);
  connection.on("end", () => lose());
  return controller.signal;
}
