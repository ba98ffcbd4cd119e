// How many answers this process is working: `runPipeline` calls between their start and their end.
// Alone (at most one), nothing else can join what an answer queues in this event-loop turn: its
// first socket write goes out at once (request-io.ts) and its hold commits at once (ledger-queue.ts)
// instead of waiting for company that cannot come. With others running, both wait for the turn's
// end: the write or commit saved is CPU the others wait for.
let running = 0;

/** no other answer is being worked in this process (the caller's own may be) */
export function answerAlone(): boolean {
  return running <= 1;
}

export function answerStarted(): void {
  running++;
}

export function answerEnded(): void {
  running--;
}
