// Under `npm start`, npm is the gateway's parent. npm 11 forwards SIGINT and SIGTERM to its child
// but dies at once on SIGHUP or SIGKILL, leaving the gateway running with nobody to stop it (a
// supervisor that signalled npm believes it is gone). So when started by an npm script, the gateway
// notes its parent and checks once a second whether the parent is still there; when it is not (the
// process was re-parented), `onOrphaned` runs. The timer never keeps the process alive.

/** Starts watching when `npm_lifecycle_event` is set; returns a function that stops the watch. */
export function watchNpmParent(env: NodeJS.ProcessEnv, onOrphaned: (parent: number) => void, everyMs = 1000): () => void {
  if (!env.npm_lifecycle_event) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    // process.ppid asks the kernel each time: the parent's pid while it lives, then the reaper's
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned(parent);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
