/**
 * A process `npm start` runs (scripts/start.ts) sits in a process group of its own, so that a terminal's
 * Ctrl-C reaches only the supervisor, which stops the processes in order; and holds an IPC channel to it.
 * Should the supervisor die without stopping them (killed outright), the channel closes: the process then
 * stops as on SIGTERM, rather than run on, holding the ports the next `npm start` needs. Without a channel
 * (a container, a test's process) this does nothing.
 */
export function stopWithSupervisor(): void {
  if (!process.connected) return;
  process.once('disconnect', () => {
    // The supervisor read this process's output: what it writes now has no reader (EPIPE), and is dropped.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    process.kill(process.pid, 'SIGTERM');
  });
  // The channel must not keep a process alive that has nothing else to do.
  process.channel?.unref();
}
