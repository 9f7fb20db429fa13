import type { ScriptCall } from "../connection/redis-calls.js";
import type { RedisKeyLayout } from "../keys/redis-key-layout.js";
import { ownerPrefix } from "../scripts/stored-hold.js";
import type { ProcessCohort } from "./process-cohort.js";

/**
 * The release-script call that gives a cohort's hold back to the server: owner-checked under its server secret, the
 * token counter lowered to the last token passed here, the stale places of waiters passed here dropped, and the key
 * handed to the head of the line. A cohort that passed nothing releases as any hold does (the script lowers the counter
 * to the hold's own token), and so may its holder's retry after a failure.
 */
export function giveBackCall(layout: RedisKeyLayout, cohort: ProcessCohort): ScriptCall<string> {
  const keys = [layout.tag(cohort.key)];
  const owner = ownerPrefix(cohort.serverSecret);
  const args = cohort.passes === 0 ? [owner] : [owner, cohort.lastToken.toString(), "", "0", ...cohort.leftLine];
  return { keys, args, request: cohort.key };
}
