// The MAIL bench's relay (bench/mail-throughput.ts), on a thread of its own: a relay on the
// local network answers at its own pace, not when the runner's event loop, busy driving the
// checkout load, gets to it. It accepts every message `delayMs` after its data ended and counts
// it in `accepted` (a SharedArrayBuffer the runner reads).
import { parentPort, workerData } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';

const { delayMs, accepted } = workerData;
const count = new Int32Array(accepted);
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  disableReverseLookup: true,
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () =>
      setTimeout(() => {
        Atomics.add(count, 0, 1);
        callback();
      }, delayMs),
    );
  },
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'close') server.close(() => process.exit(0));
});
