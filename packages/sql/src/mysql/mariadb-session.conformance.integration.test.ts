import { startMariadb } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { describeSessionConformance } from "../../test/session-lock-tests.js";

const server = await startMariadb();
afterAll(() => server.close());

// fifo: MariaDB queues GET_LOCK waiters as metadata locks, granted in arrival order ("grants waiters in arrival order").
describeSessionConformance("mariadb session (GET_LOCK)", `${server.userUrl}?mode=session`, server);
