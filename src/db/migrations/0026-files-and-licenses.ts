import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../database.js';
import { withId } from '../migration-helpers.js';

/**
 * File products and licences (issue 35).
 *
 * - `files`: what an owner uploaded: its name, size, SHA-256 and content type, and the key it is
 *   stored under (local disk or an S3 bucket, `storage` says which).
 * - `file_uploads`: a resumable upload in progress: how many bytes arrived, and for S3 the
 *   multipart upload and its parts so far, so any instance can take the next chunk.
 * - `file_attachments`: which files a `file` variant delivers, in order. A file attached to a
 *   variant cannot be deleted.
 * - `download_grants`: the files a completed order may download, with the limit and link lifetime
 *   fixed at delivery and the downloads counted so far; `revoked_at` when a refund ended them. A
 *   file the owner deletes (only once no variant delivers it) takes its grants with it.
 * - `download_log`: every download served (time, address, user agent, bytes), for the owner.
 * - `product_variants` gains the `asFile` settings (download limit, link hours) and the `license`
 *   option (activation limit, validity in days or a fixed end, key pattern), and its type check
 *   allows `file` (on SQLite, which cannot alter a check, by rebuilding the table: allowTypes).
 * - `licenses` and `license_activations`: each licence sold and the instances it is activated on;
 *   `activation_usage` counts the live activations, so the limit is one conditional update.
 * - `license_signing_keys`: each shop's Ed25519 keys (the private half sealed with the server's
 *   key); the current one has no `retired_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const shopId = 'shop_id';
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('storage', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_shop_idx').on('files').columns(['shop_id', 'created_at']).execute();

  await db.schema
    .createTable('file_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('received', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('storage', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('multipart_id', 'text')
    .addColumn('parts', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_uploads_shop_idx').on('file_uploads').columns(['shop_id', 'updated_at']).execute();

  await db.schema
    .createTable('file_attachments')
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('variant_id', 'integer', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_attachments_pk', ['shop_id', 'variant_id', 'file_id'])
    .execute();
  await db.schema
    .createIndex('file_attachments_file_idx')
    .on('file_attachments')
    .columns(['shop_id', 'file_id'])
    .execute();

  await withId(db, db.schema.createTable('download_grants'))
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('download_limit', 'integer', (c) => c.notNull())
    .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('link_hours', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('download_grants_invoice_file_idx')
    .on('download_grants')
    .columns(['shop_id', 'invoice_id', 'file_id'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('download_log'))
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('grant_id', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('range', 'text')
    .addColumn('counted', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('download_log_invoice_idx')
    .on('download_log')
    .columns(['shop_id', 'invoice_id', 'id'])
    .execute();

  await db.schema.alterTable('product_variants').addColumn('file_download_limit', 'integer').execute();
  await db.schema.alterTable('product_variants').addColumn('file_link_hours', 'integer').execute();
  await db.schema
    .alterTable('product_variants')
    .addColumn('license_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('product_variants').addColumn('license_activation_limit', 'integer').execute();
  await db.schema.alterTable('product_variants').addColumn('license_valid_days', 'integer').execute();
  await db.schema.alterTable('product_variants').addColumn('license_expires_at', 'bigint').execute();
  await db.schema.alterTable('product_variants').addColumn('license_key_pattern', 'text').execute();

  await allowTypes(db, ['serials', 'service', 'dynamic', 'file']);

  await withId(db, db.schema.createTable('licenses'))
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('license_key', 'text', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('variant_id', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'integer')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('activation_limit', 'integer')
    .addColumn('activation_usage', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('licenses_key_idx').on('licenses').columns(['shop_id', 'license_key']).unique().execute();
  await db.schema.createIndex('licenses_invoice_idx').on('licenses').columns(['shop_id', 'invoice_id']).execute();
  await db.schema.createIndex('licenses_customer_idx').on('licenses').columns(['shop_id', 'customer_id']).execute();
  // The owner's list (newest first) and the buyer's licences (by the address they sign in with).
  await db.schema.createIndex('licenses_created_idx').on('licenses').columns(['shop_id', 'created_at']).execute();
  await db.schema.createIndex('licenses_email_idx').on('licenses').columns(['shop_id', 'email']).execute();

  await db.schema
    .createTable('license_activations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('license_id', 'integer', (c) => c.notNull().references('licenses.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deactivated_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('license_activations_license_idx')
    .on('license_activations')
    .columns(['shop_id', 'license_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('license_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn(shopId, 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('sealed_private_key', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('license_signing_keys_shop_idx')
    .on('license_signing_keys')
    .columns(['shop_id', 'created_at'])
    .execute();
  // At most one current key per shop: two requests creating a shop's first key at once keep one.
  await db.schema
    .createIndex('license_signing_keys_current_idx')
    .on('license_signing_keys')
    .column('shop_id')
    .unique()
    .where(sql.ref('retired_at'), 'is', null)
    .execute();
}

const TYPE_CHECK = 'product_variants_type';

/**
 * Replaces the variants' type check with one allowing `types`. PostgreSQL alters the constraint.
 * SQLite cannot, so the table is rebuilt as its documentation prescribes (lang_altertable.html,
 * "Making Other Kinds Of Table Schema Changes"): foreign keys off (SQLite migrations run outside
 * a transaction, so the pragma takes effect), then in one transaction a copy of the table with the
 * new check, every row copied, the old table dropped, the copy renamed, its indexes made again,
 * and a foreign key check before the commit. With foreign keys on, dropping the old table would
 * delete its serials (ON DELETE CASCADE).
 */
async function allowTypes(db: Kysely<unknown>, types: string[]): Promise<void> {
  const check = `product_type in (${types.map((t) => `'${t}'`).join(', ')})`;
  if (isPostgres(db)) {
    await sql`alter table product_variants drop constraint ${sql.id(TYPE_CHECK)}`.execute(db);
    await sql`alter table product_variants add constraint ${sql.id(TYPE_CHECK)} check (${sql.raw(check)})`.execute(db);
    return;
  }
  const table = (
    await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'table' and name = 'product_variants'`.execute(db)
  ).rows[0]!.sql;
  const indexes = (
    await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'index' and tbl_name = 'product_variants' and sql is not null`.execute(
      db,
    )
  ).rows.map((r) => r.sql);
  const oldCheck = /product_type in \([^)]*\)/;
  if (!oldCheck.test(table)) throw new Error("migration 0026: the variants' type check was not found");
  const copy = table
    .replace(/^CREATE TABLE\s+("?)product_variants\1/i, 'CREATE TABLE "product_variants_0026"')
    .replace(oldCheck, check);
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(copy).execute(trx);
      await sql`insert into product_variants_0026 select * from product_variants`.execute(trx);
      await sql`drop table product_variants`.execute(trx);
      await sql`alter table product_variants_0026 rename to product_variants`.execute(trx);
      for (const index of indexes) await sql.raw(index).execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error('migration 0026: rebuilding product_variants broke a foreign key');
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
