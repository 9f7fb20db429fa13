import { distlockKeys, redlockUniversalKeys, sesamecareKeys } from "./multi-key-subjects.js";
import { CONTENDED_KEY_COUNT } from "./multi-key-targets.js";

// Worker processes find the contended subjects among this module's exports, by id.
export const DISTLOCK_CONTENDED = distlockKeys(CONTENDED_KEY_COUNT);
export const SESAMECARE_CONTENDED = sesamecareKeys(CONTENDED_KEY_COUNT);
export const REDLOCK_UNIVERSAL_CONTENDED = redlockUniversalKeys(CONTENDED_KEY_COUNT);

/** The subjects two workers measure over one set of keys. */
export const CONTENDED_KEY_COUNT_SUBJECTS = [DISTLOCK_CONTENDED, SESAMECARE_CONTENDED, REDLOCK_UNIVERSAL_CONTENDED];
