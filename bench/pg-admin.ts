import pg from 'pg';
import { PG_ADMIN_URL } from './config.js';

const DATABASE = 'shopd_bench';

/** Creates the benchmark database when missing; with `fresh`, drops it first (connections closed). */
export async function ensurePgDatabase(fresh: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    if (fresh) await client.query(`drop database if exists ${DATABASE} with (force)`);
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}
