import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../database.js';

/**
 * Owner searches (`searchString`: a case-insensitive substring of some text columns) through an
 * index instead of a scan of every row of the shop (issue 20, item 1).
 *
 * SQLite: one FTS5 table per searched table with the `trigram` tokenizer (case-insensitive), its
 * rowid the searched row's rowid. It is contentless (`content=''`: it holds the index only, the
 * text stays in the table) with `contentless_delete=1`, so a row is taken out by its rowid alone.
 * Triggers keep it in step with every insert, delete and change of the searched columns, in the
 * same transaction. On `invoices` (a text primary key) the rowid is the implicit one: SQLite keeps
 * it through VACUUM and the backup API, and nothing here reassigns it.
 *
 * PostgreSQL: `pg_trgm` GIN indexes on `lower(column)`, which serve the `lower(column) like
 * '%text%'` the searches run. The extension is installed in `public` (not in the connection's
 * schema, which may be dropped, taking the extension and every index built on it along).
 *
 * Either index serves search texts of 3 characters or more; shorter ones scan (see searchText in
 * sql-helpers.ts). Frozen: the columns are listed here, not taken from application code.
 */
const searched: Record<string, string[]> = {
  invoices: ['id', 'customer_email'],
  customers: ['email'],
  feedbacks: ['comment', 'answer', 'invoice_id'],
  products: ['title', 'path', 'short_description'],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    const { rows } = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where e.extname = 'pg_trgm'`.execute(db);
    const ops = sql`${sql.id(rows[0]!.schema)}.gin_trgm_ops`;
    for (const [table, columns] of Object.entries(searched)) {
      for (const column of columns) {
        await sql`create index ${sql.id(`${table}_${column}_trgm_idx`)} on ${sql.table(table)}
          using gin (lower(${sql.ref(column)}) ${ops})`.execute(db);
      }
    }
    return;
  }
  for (const [table, columns] of Object.entries(searched)) {
    const index = sql.table(`${table}_search`);
    const list = sql.join(columns.map((c) => sql.ref(c)));
    const values = (row: 'new' | 'old') => sql.join(columns.map((c) => sql.ref(`${row}.${c}`)));
    await sql`create virtual table ${index} using fts5(${list}, content='', contentless_delete=1, tokenize='trigram')`.execute(
      db,
    );
    await sql`insert into ${index} (rowid, ${list}) select rowid, ${list} from ${sql.table(table)}`.execute(db);
    await sql`create trigger ${sql.id(`${table}_search_insert`)} after insert on ${sql.table(table)} begin
      insert into ${index} (rowid, ${list}) values (new.rowid, ${values('new')});
    end`.execute(db);
    await sql`create trigger ${sql.id(`${table}_search_delete`)} after delete on ${sql.table(table)} begin
      delete from ${index} where rowid = old.rowid;
    end`.execute(db);
    await sql`create trigger ${sql.id(`${table}_search_update`)} after update of ${list} on ${sql.table(table)} begin
      delete from ${index} where rowid = old.rowid;
      insert into ${index} (rowid, ${list}) values (new.rowid, ${values('new')});
    end`.execute(db);
  }
}
