import { startPostgres } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { describeSessionConformance } from "../../test/session-lock-tests.js";

const server = await startPostgres();
afterAll(() => server.close());

describeSessionConformance("postgres session (advisory locks)", `${server.url}${server.url.includes("?") ? "&" : "?"}mode=session`, server);
