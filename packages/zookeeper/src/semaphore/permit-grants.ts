import type { HeldNode } from "../leases/held-node.js";
import { HeldNodes } from "../leases/held-nodes.js";

/**
 * The permits this driver holds: one grant (an owner secret) is `count` lease nodes, each a `HeldNode` whose lease
 * `HeldNodes` enforces as it does a lock's.
 */
export class PermitGrants {
  readonly leases = new HeldNodes();
  readonly #grants = new Map<string, HeldNode[]>();

  add(name: string, owner: string, nodes: HeldNode[]): void {
    this.#grants.set(grantId(name, owner), nodes);
    for (const node of nodes) this.leases.add(node);
  }

  /** The grant's nodes still live here, or undefined when it is not held here (released, lapsed, session lost). */
  get(name: string, owner: string): HeldNode[] | undefined {
    const nodes = this.#grants.get(grantId(name, owner));
    const live = nodes?.filter((node) => this.leases.get(node.key) === node);
    if (nodes !== undefined && live?.length !== nodes.length) this.#grants.delete(grantId(name, owner));
    return live?.length === nodes?.length ? nodes : undefined;
  }

  /** The live node at `path`, for `inspect`'s lease. */
  byPath(path: string): HeldNode | undefined {
    return this.leases.byPath(path);
  }

  delete(name: string, owner: string): void {
    for (const node of this.#grants.get(grantId(name, owner)) ?? []) this.leases.delete(node);
    this.#grants.delete(grantId(name, owner));
  }

  close(): void {
    this.leases.close();
    this.#grants.clear();
  }
}

function grantId(name: string, owner: string): string {
  return `${owner}/${name}`;
}
