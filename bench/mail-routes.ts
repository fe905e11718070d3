import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type MailWorker, mailBacklog, startMailWorker } from '../src/modules/mail/index.js';

/** The bench server's side of MAIL (bench/mail-throughput.ts): `POST /__bench/mail/start` points a mail worker at the relay, `…/stop` stops it. */
export function addMailBenchRoutes(app: FastifyInstance): void {
  let worker: MailWorker | undefined;
  const quiet = { config: { rateLimit: false }, schema: { hide: true } } as const;
  app.post(
    '/__bench/mail/start',
    {
      ...quiet,
      schema: {
        hide: true,
        body: Type.Object({
          smtpUrl: Type.String(),
          concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
        }),
      },
    },
    async (request) => {
      await worker?.stop();
      const { smtpUrl, concurrency = app.config.mail.concurrency } = request.body as {
        smtpUrl: string;
        concurrency?: number;
      };
      worker = startMailWorker(app, { schedule: true, mail: { smtpUrl, workerEnabled: true, concurrency } });
      return { concurrency };
    },
  );
  app.post('/__bench/mail/stop', quiet, async () => {
    await worker?.stop();
    worker = undefined;
    return { stopped: true };
  });
  app.get('/__bench/mail/backlog', quiet, async () => mailBacklog(app.ctx));
  app.addHook('onClose', async () => worker?.stop());
}
