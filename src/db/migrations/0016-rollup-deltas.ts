import { type Kysely, type RawBuilder, sql } from 'kysely';

/**
 * Rollups as deltas (issue 20): each row holds what happened in its bucket of local days only
 * (a day, 32 days, 1024 days), where the cumulative snapshots of 0006 copied every key forward
 * into each new day. Rows carry the generation of the shop's rollups, so a timezone change can
 * build the next one in bounded batches beside the live one. The new tables are filled here
 * from the raw rows (this migration's own SQL), and the cumulative ones dropped.
 */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Blocks of 32 days at level 1, of 32 × 32 days at level 2. */
const BLOCK = 32;

const TOTALS = [
  'created_orders',
  'created_pending',
  'created_completed',
  'completed_orders',
  'revenue',
  'units_sold',
  'repeat_orders',
  'new_customers',
  'feedbacks',
  'rating_sum',
  'replacements',
  'replaced_units',
] as const;
type TotalsColumn = (typeof TOTALS)[number];

const KEYED = {
  rollup_products: { keys: ['product_id'], sums: ['revenue', 'quantity'], maxima: ['last_part_id'] },
  rollup_hours: { keys: ['hour'], sums: ['orders'], maxima: [] },
  rollup_gateways: { keys: ['gateway'], sums: ['revenue', 'orders'], maxima: [] },
  rollup_invoice_counts: { keys: ['status', 'gateway'], sums: ['invoices'], maxima: [] },
} as const satisfies Record<string, { keys: readonly string[]; sums: readonly string[]; maxima: readonly string[] }>;
type KeyedTable = keyof typeof KEYED;
const KEYED_TABLES = Object.keys(KEYED) as KeyedTable[];

const ids = (names: readonly string[]) => sql.join(names.map((n) => sql.id(n)));
const localDay = (column: string, offsetMs: number) =>
  sql<number>`((${sql.ref(column)} + ${sql.lit(offsetMs)}) / ${sql.lit(DAY_MS)})`;
const localHour = (column: string, offsetMs: number) =>
  sql<number>`(((${sql.ref(column)} + ${sql.lit(offsetMs)}) / ${sql.lit(HOUR_MS)}) % 24)`;
const completedParts = (shopId: number) =>
  sql`from invoices i cross join invoice_parts p where p.invoice_id = i.id and +p.shop_id = ${shopId} and i.shop_id = ${shopId} and i.status = 'completed'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rollup_invoice_counts', 'rollup_gateways', 'rollup_hours', 'rollup_products', 'rollup_days'])
    await db.schema.dropTable(table).execute();

  await db.schema
    .alterTable('rollup_state')
    .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('rollup_state').addColumn('rebuild_offset_minutes', 'integer').execute();
  await db.schema.alterTable('rollup_state').addColumn('rebuild_cursor', 'bigint').execute();

  const bucketed = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('bucket', 'integer', (c) => c.notNull());
  let totals = bucketed('rollup_totals');
  for (const column of TOTALS) totals = totals.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0));
  await totals.addPrimaryKeyConstraint('rollup_totals_pk', ['shop_id', 'generation', 'level', 'bucket']).execute();
  await bucketed('rollup_products')
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('last_part_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_products_pk', ['shop_id', 'generation', 'level', 'bucket', 'product_id'])
    .execute();
  await bucketed('rollup_hours')
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_hours_pk', ['shop_id', 'generation', 'level', 'bucket', 'hour'])
    .execute();
  await bucketed('rollup_gateways')
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_gateways_pk', ['shop_id', 'generation', 'level', 'bucket', 'gateway'])
    .execute();
  await bucketed('rollup_invoice_counts')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('invoices', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_invoice_counts_pk', [
      'shop_id',
      'generation',
      'level',
      'bucket',
      'status',
      'gateway',
    ])
    .execute();

  await sql`delete from rollup_state`.execute(db);
  await sql`insert into rollup_state (shop_id, generation, utc_offset_minutes) select id, 0, utc_offset_minutes from shops`.execute(
    db,
  );
  const shops = await sql<{
    id: number;
    offset: number;
  }>`select id, utc_offset_minutes as "offset" from shops order by id`.execute(db);
  for (const shop of shops.rows) await fillShop(db, Number(shop.id), Number(shop.offset) * 60_000);
}

function daySource(
  day: RawBuilder<number>,
  measures: Partial<Record<TotalsColumn, RawBuilder<unknown>>>,
  from: RawBuilder<unknown>,
) {
  const select = TOTALS.map((c) => sql`${measures[c] ?? sql`0`} as ${sql.id(c)}`);
  return sql`select ${day} as day, ${sql.join(select)} ${from} group by ${day}`;
}

function keyedDays(table: KeyedTable, shopId: number, offsetMs: number): RawBuilder<unknown> {
  const completedDay = localDay('completed_at', offsetMs);
  switch (table) {
    case 'rollup_products': {
      const day = localDay('i.completed_at', offsetMs);
      return sql`select ${day} as bucket, p.product_id, sum(p.total) as revenue, sum(p.quantity) as quantity, max(p.id) as last_part_id
        ${completedParts(shopId)} group by ${day}, p.product_id`;
    }
    case 'rollup_hours': {
      const hour = localHour('completed_at', offsetMs);
      return sql`select ${completedDay} as bucket, ${hour} as hour, count(*) as orders
        from invoices where shop_id = ${shopId} and status = 'completed' group by ${completedDay}, ${hour}`;
    }
    case 'rollup_gateways':
      return sql`select ${completedDay} as bucket, gateway, sum(total) as revenue, count(*) as orders
        from invoices where shop_id = ${shopId} and status = 'completed' group by ${completedDay}, gateway`;
    case 'rollup_invoice_counts': {
      const createdDay = localDay('created_at', offsetMs);
      return sql`select ${createdDay} as bucket, status, gateway, count(*) as invoices
        from invoices where shop_id = ${shopId} group by ${createdDay}, status, gateway`;
    }
  }
}

/** One shop's generation 0: days from the raw rows, then each coarser level from the one below. */
async function fillShop(db: Kysely<unknown>, shopId: number, offsetMs: number): Promise<void> {
  const created = localDay('created_at', offsetMs);
  const sources = [
    daySource(
      created,
      {
        created_orders: sql`count(*)`,
        created_pending: sql`sum(case when status = 'pending' then 1 else 0 end)`,
        created_completed: sql`sum(case when status = 'completed' then 1 else 0 end)`,
      },
      sql`from invoices where shop_id = ${shopId}`,
    ),
    daySource(
      localDay('completed_at', offsetMs),
      {
        completed_orders: sql`count(*)`,
        revenue: sql`sum(total)`,
        repeat_orders: sql`sum(coalesce(repeat_purchase, 0))`,
      },
      sql`from invoices where shop_id = ${shopId} and status = 'completed'`,
    ),
    daySource(localDay('i.completed_at', offsetMs), { units_sold: sql`sum(p.quantity)` }, completedParts(shopId)),
    daySource(created, { new_customers: sql`count(*)` }, sql`from customers where shop_id = ${shopId}`),
    daySource(
      created,
      { feedbacks: sql`count(*)`, rating_sum: sql`sum(rating)` },
      sql`from feedbacks where shop_id = ${shopId} and id not in (select feedback_id from feedback_appeals where shop_id = ${shopId} and status = 'accepted')`,
    ),
    daySource(
      created,
      { replacements: sql`count(*)`, replaced_units: sql`sum(quantity)` },
      sql`from invoice_replacements where shop_id = ${shopId}`,
    ),
  ];
  await sql`insert into rollup_totals (shop_id, generation, level, bucket, ${ids(TOTALS)})
    select cast(${shopId} as integer), 0, 0, e.day, ${sql.join(TOTALS.map((c) => sql`sum(${sql.ref(`e.${c}`)})`))}
    from (${sql.join(sources, sql` union all `)}) e group by e.day`.execute(db);
  for (const table of KEYED_TABLES) {
    const { keys, sums, maxima } = KEYED[table];
    await sql`insert into ${sql.table(table)} (shop_id, generation, level, bucket, ${ids([...keys, ...sums, ...maxima])})
      select cast(${shopId} as integer), 0, 0, d.bucket, ${ids([...keys, ...sums, ...maxima])}
      from (${keyedDays(table, shopId, offsetMs)}) d`.execute(db);
  }
  for (const level of [1, 2]) {
    const coarser = async (
      table: string,
      keys: readonly string[],
      sums: readonly string[],
      maxima: readonly string[],
    ) => {
      const measures = [...sums.map((c) => sql`sum(${sql.id(c)})`), ...maxima.map((c) => sql`max(${sql.id(c)})`)];
      const bucket = sql`bucket / ${sql.lit(BLOCK)}`;
      await sql`insert into ${sql.table(table)} (shop_id, generation, level, bucket, ${ids([...keys, ...sums, ...maxima])})
        select shop_id, generation, ${sql.lit(level)}, ${bucket}${keys.length ? sql`, ${ids(keys)}` : sql``}, ${sql.join(measures)}
        from ${sql.table(table)} where shop_id = ${shopId} and level = ${sql.lit(level - 1)}
        group by shop_id, generation, ${bucket}${keys.length ? sql`, ${ids(keys)}` : sql``}`.execute(db);
    };
    await coarser('rollup_totals', [], TOTALS, []);
    for (const table of KEYED_TABLES) await coarser(table, KEYED[table].keys, KEYED[table].sums, KEYED[table].maxima);
  }
}
