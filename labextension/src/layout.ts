/**
 * A layered layout for a plan's dependency graph: a step's column is one more than the
 * deepest step it waits for; within a column, steps are ordered by the mean row of what they
 * wait for (one barycentre pass, which removes most crossings in plans of this size).
 */
import { IPlanStep } from './protocol';

export interface INodeBox {
  index: number;
  x: number;
  y: number;
}

export interface ILayout {
  nodes: Map<number, INodeBox>;
  width: number;
  height: number;
}

export const NODE_W = 170;
export const NODE_H = 66;
const GAP_X = 44;
const GAP_Y = 18;

/** Each step's dependencies: its wait_for, or (absent or null) the previous step as the
 * executor reads it (index - 1; with a gap there, the step before in index order); the first
 * step waits for nothing (seed 001). */
export function dependencies(steps: IPlanStep[]): Map<number, number[]> {
  const order = steps.map(s => s.index).sort((a, b) => a - b);
  const known = new Set(order);
  const deps = new Map<number, number[]>();
  for (const s of steps) {
    if (Array.isArray(s.wait_for)) {
      deps.set(s.index, s.wait_for);
    } else if (known.has(s.index - 1)) {
      deps.set(s.index, [s.index - 1]);
    } else {
      const at = order.indexOf(s.index);
      deps.set(s.index, at > 0 ? [order[at - 1]] : []);
    }
  }
  return deps;
}

export function layoutPlan(steps: IPlanStep[]): ILayout {
  const byIndex = new Map(steps.map(s => [s.index, s]));
  const waits = dependencies(steps);
  const layer = new Map<number, number>();
  const depth = (i: number, seen: Set<number>): number => {
    const known = layer.get(i);
    if (known !== undefined) {
      return known;
    }
    const step = byIndex.get(i);
    if (!step || seen.has(i)) {
      return 0; // the kernel refuses cycles; never loop on a bad plan anyway
    }
    seen.add(i);
    const deps = (waits.get(i) ?? []).filter(d => byIndex.has(d));
    const value = deps.length ? 1 + Math.max(...deps.map(d => depth(d, seen))) : 0;
    layer.set(i, value);
    return value;
  };
  steps.forEach(s => depth(s.index, new Set()));

  const columns: number[][] = [];
  for (const s of [...steps].sort((a, b) => a.index - b.index)) {
    const c = layer.get(s.index) ?? 0;
    (columns[c] = columns[c] ?? []).push(s.index);
  }
  const row = new Map<number, number>();
  columns.forEach((col, c) => {
    if (c > 0) {
      const key = (i: number): number => {
        const deps = (waits.get(i) ?? []).filter(d => row.has(d));
        return deps.length ? deps.reduce((a, d) => a + row.get(d)!, 0) / deps.length : i;
      };
      col.sort((a, b) => key(a) - key(b) || a - b);
    }
    col.forEach((i, r) => row.set(i, r));
  });

  const nodes = new Map<number, INodeBox>();
  let rows = 0;
  columns.forEach((col, c) => {
    rows = Math.max(rows, col.length);
    col.forEach((i, r) => nodes.set(i, { index: i, x: c * (NODE_W + GAP_X), y: r * (NODE_H + GAP_Y) }));
  });
  return {
    nodes,
    width: Math.max(1, columns.length) * (NODE_W + GAP_X) - GAP_X,
    height: Math.max(1, rows) * (NODE_H + GAP_Y) - GAP_Y
  };
}
