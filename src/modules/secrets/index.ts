// The secrets module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.

export { rotateSecretsCommand } from './rotate-command.js';
export { checkStoredSecrets } from './service.js';
