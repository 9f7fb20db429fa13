/**
 * Latencies of one turn, written into room made before the turn starts. A `number[]` grown by `push` inside the
 * measured window copies itself as it grows, and the copies of a large array are promoted by the collector: that work
 * landed in the turn of whichever subject made the most operations, i.e. the fastest one.
 */
export class LatencyRecorder {
  #samples: Float64Array;
  #count = 0;

  constructor(capacity: number) {
    this.#samples = new Float64Array(Math.max(1, capacity));
  }

  /** Adds one latency (ms); grows (a copy) only when the turn outruns the room made for it. */
  record(ms: number): void {
    if (this.#count === this.#samples.length) {
      const grown = new Float64Array(this.#samples.length * 2);
      grown.set(this.#samples);
      this.#samples = grown;
    }
    this.#samples[this.#count++] = ms;
  }

  get count(): number {
    return this.#count;
  }

  /** The latencies recorded, in order, as an array of their own (to call once the turn is over). */
  toArray(): number[] {
    return Array.from(this.#samples.subarray(0, this.#count));
  }
}
