// The decision rule of the contract (router-api.ts): among the candidates, the cheapest whose
// predicted quality stays within `target` of the best one's; ties go to the higher quality, then to
// the smaller id, so the same input always gives the same choice.
import type { RankedCandidate, RouterCandidate, RouterDecision } from './router-api.js';

/** `quality[i]` is candidate i's predicted quality. */
export function decideAmong(candidates: readonly RouterCandidate[], quality: ArrayLike<number>, target: number): RouterDecision {
  if (candidates.length === 0) throw new Error('router: no candidate to choose from');
  let best = -Infinity;
  for (let i = 0; i < candidates.length; i++) if (quality[i]! > best) best = quality[i]!;
  // a target above 1 (or not a number) would let no candidate pass: it means "the best", as 1 does
  const bar = best * (target >= 0 && target <= 1 ? target : 1);
  let chosen = -1;
  for (let i = 0; i < candidates.length; i++) {
    if (quality[i]! < bar) continue;
    if (chosen < 0 || better(candidates, quality, i, chosen)) chosen = i;
  }
  const ranked: RankedCandidate[] = candidates.map((c, i) => ({ id: c.id, quality: quality[i]!, cost: c.cost }));
  ranked.sort((a, b) => b.quality - a.quality || a.cost - b.cost || compareIds(a.id, b.id));
  return { model: candidates[chosen]!.id, ranked };
}

/** Is candidate i a better pick than j: cheaper, else of higher quality, else the smaller id. */
function better(c: readonly RouterCandidate[], q: ArrayLike<number>, i: number, j: number): boolean {
  if (c[i]!.cost !== c[j]!.cost) return c[i]!.cost < c[j]!.cost;
  if (q[i] !== q[j]) return q[i]! > q[j]!;
  return compareIds(c[i]!.id, c[j]!.id) < 0;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
