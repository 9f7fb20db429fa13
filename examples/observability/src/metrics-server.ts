import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";

/** An OpenTelemetry meter provider whose metrics a Prometheus server can scrape at `url`. */
export interface MetricsServer {
  readonly meterProvider: MeterProvider;
  /** `http://<host>:<port>/metrics` */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the meter provider's metrics in the Prometheus text format on `port` (0: any free port). */
export async function startMetricsServer(port = 0, host = "127.0.0.1"): Promise<MetricsServer> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const server = createServer((request, response) => {
    if (request.method === "GET" && request.url?.split("?")[0] === "/metrics") exporter.getMetricsRequestHandler(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    meterProvider,
    url: `http://${host}:${address.port}/metrics`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      await meterProvider.shutdown();
    },
  };
}

/** The value of the sample `name` whose labels include `labels`, summed over matching series; 0 when there is none. */
export function sampleValue(exposition: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of exposition.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match === null || match[1] !== name) continue;
    const present = new Map([...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1], label[2]]));
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) total += Number(match[3]);
  }
  return total;
}
