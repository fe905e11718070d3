import { type Kysely, type RawBuilder, sql } from 'kysely';

/**
 * Dashboard rollups (issue 7, T5/T6): cumulative snapshots per shop-local day, maintained in the
 * transactions that change the orders, so a dashboard over a year reads a few hundred rows instead
 * of every invoice; the repeat-purchase flag they roll up; and the indexes the filtered invoice
 * list and the partial edge days of a dashboard range need. See src/modules/rollups/rollups.ts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Which rollups a shop has and the UTC offset they are keyed by; its row is the per-shop lock
  // that writers of the rollups take (PostgreSQL), so a timezone change can rebuild them safely.
  await db.schema
    .createTable('rollup_state')
    .addColumn('shop_id', 'integer', (c) => c.primaryKey().references('shops.id').onDelete('cascade'))
    .addColumn('utc_offset_minutes', 'integer', (c) => c.notNull())
    .execute();

  // Every figure is cumulative: the row of day d holds the total up to the end of local day d.
  await db.schema
    .createTable('rollup_days')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('created_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_pending', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_completed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('revenue', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('units_sold', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('repeat_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('new_customers', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('feedbacks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('replacements', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('replaced_units', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('rollup_days_pk', ['shop_id', 'day'])
    .execute();

  await db.schema
    .createTable('rollup_products')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('last_part_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_products_pk', ['shop_id', 'day', 'product_id'])
    .execute();

  await db.schema
    .createTable('rollup_hours')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_hours_pk', ['shop_id', 'day', 'hour'])
    .execute();

  await db.schema
    .createTable('rollup_gateways')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    .addColumn('orders', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_gateways_pk', ['shop_id', 'day', 'gateway'])
    .execute();

  await db.schema
    .createTable('rollup_invoice_counts')
    .addColumn('shop_id', 'integer', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('gateway', 'text', (c) => c.notNull())
    .addColumn('invoices', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rollup_invoice_counts_pk', ['shop_id', 'day', 'status', 'gateway'])
    .execute();

  // 1 when the customer had completed an invoice before this one; decided at completion.
  await db.schema.alterTable('invoices').addColumn('repeat_purchase', 'integer').execute();

  // The owner list filtered by status and gateway, newest first: one index range scan.
  await db.schema
    .createIndex('invoices_shop_status_gateway_created_idx')
    .on('invoices')
    .columns(['shop_id', 'status', 'gateway', 'created_at', 'id'])
    .execute();
  // The partial first and last days of a dashboard range are read from the raw rows.
  await db.schema
    .createIndex('invoices_shop_completed_idx')
    .on('invoices')
    .columns(['shop_id', 'completed_at'])
    .execute();
  // Time first: SQLite (without statistics) would otherwise prefer a (shop_id, …) index to the
  // invoice_id one when listing an invoice's replacements.
  await db.schema
    .createIndex('invoice_replacements_created_idx')
    .on('invoice_replacements')
    .columns(['created_at', 'shop_id'])
    .execute();

  // Existing shops: repeat flags from their order history, then their rollups.
  const shops = await sql<{ id: number }>`select id from shops order by id`.execute(db);
  for (const shop of shops.rows) await fillShop(db, Number(shop.id));
}

/*
 * The fill below is this migration's own copy of the rebuild as it stood when it was written
 * (migrations are frozen: they import no live code). Migration 0016 replaces these cumulative
 * snapshots with deltas, recomputed from the raw rows.
 */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DAY_COLUMNS = [
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
type DayColumn = (typeof DAY_COLUMNS)[number];
const KEYED = {
  rollup_products: { keys: ['product_id'], sums: ['revenue', 'quantity'], maxima: ['last_part_id'] },
  rollup_hours: { keys: ['hour'], sums: ['orders'], maxima: [] },
  rollup_gateways: { keys: ['gateway'], sums: ['revenue', 'orders'], maxima: [] },
  rollup_invoice_counts: { keys: ['status', 'gateway'], sums: ['invoices'], maxima: [] },
} as const satisfies Record<string, { keys: readonly string[]; sums: readonly string[]; maxima: readonly string[] }>;
type KeyedTable = keyof typeof KEYED;
const ids = (names: readonly string[], prefix?: string) =>
  sql.join(names.map((n) => (prefix ? sql.ref(`${prefix}.${n}`) : sql.id(n))));
const localDay = (column: string, offsetMs: number) =>
  sql<number>`((${sql.ref(column)} + ${sql.lit(offsetMs)}) / ${sql.lit(DAY_MS)})`;
const localHour = (column: string, offsetMs: number) =>
  sql<number>`(((${sql.ref(column)} + ${sql.lit(offsetMs)}) / ${sql.lit(HOUR_MS)}) % 24)`;
const completedParts = (shopId: number) =>
  sql`from invoices i cross join invoice_parts p where p.invoice_id = i.id and +p.shop_id = ${shopId} and i.shop_id = ${shopId} and i.status = 'completed'`;

function daySource(
  day: RawBuilder<number>,
  measures: Partial<Record<DayColumn, RawBuilder<unknown>>>,
  from: RawBuilder<unknown>,
) {
  const select = DAY_COLUMNS.map((c) => sql`${measures[c] ?? sql`0`} as ${sql.id(c)}`);
  return sql`select ${day} as day, ${sql.join(select)} ${from} group by ${day}`;
}

function keyedDeltas(table: KeyedTable, shopId: number, offsetMs: number): RawBuilder<unknown> {
  const completedDay = localDay('completed_at', offsetMs);
  switch (table) {
    case 'rollup_products': {
      const day = localDay('i.completed_at', offsetMs);
      return sql`select ${day} as day, p.product_id, sum(p.total) as revenue, sum(p.quantity) as quantity, max(p.id) as last_part_id
        ${completedParts(shopId)} group by ${day}, p.product_id`;
    }
    case 'rollup_hours': {
      const hour = localHour('completed_at', offsetMs);
      return sql`select ${completedDay} as day, ${hour} as hour, count(*) as orders
        from invoices where shop_id = ${shopId} and status = 'completed' group by ${completedDay}, ${hour}`;
    }
    case 'rollup_gateways':
      return sql`select ${completedDay} as day, gateway, sum(total) as revenue, count(*) as orders
        from invoices where shop_id = ${shopId} and status = 'completed' group by ${completedDay}, gateway`;
    case 'rollup_invoice_counts': {
      const createdDay = localDay('created_at', offsetMs);
      return sql`select ${createdDay} as day, status, gateway, count(*) as invoices from invoices where shop_id = ${shopId} group by ${createdDay}, status, gateway`;
    }
  }
}

async function fillShop(db: Kysely<unknown>, shopId: number): Promise<void> {
  // Repeat-purchase flags from the order history.
  await sql`update invoices set repeat_purchase = r.repeat
    from (select id, case when row_number() over (partition by customer_id order by completed_at, id) > 1 then 1 else 0 end as repeat
      from invoices where shop_id = ${shopId} and status = 'completed') r
    where invoices.id = r.id and invoices.shop_id = ${shopId} and invoices.repeat_purchase is null`.execute(db);
  const offsetMinutes = Number(
    (await sql<{ m: number }>`select utc_offset_minutes as m from shops where id = ${shopId}`.execute(db)).rows[0]!.m,
  );
  const offsetMs = offsetMinutes * 60_000;
  await sql`insert into rollup_state (shop_id, utc_offset_minutes) values (${shopId}, ${offsetMinutes})`.execute(db);
  const created = localDay('created_at', offsetMs);
  const completed = localDay('completed_at', offsetMs);
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
      completed,
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
  await sql`insert into rollup_days (shop_id, day, ${ids(DAY_COLUMNS)})
    select cast(${shopId} as integer), e.day, ${sql.join(DAY_COLUMNS.map((c) => sql`sum(sum(${sql.ref(`e.${c}`)})) over w`))}
    from (${sql.join(sources, sql` union all `)}) e
    group by e.day
    window w as (order by e.day rows between unbounded preceding and current row)`.execute(db);
  for (const table of Object.keys(KEYED) as KeyedTable[]) {
    const { keys, sums, maxima } = KEYED[table];
    const measures = [
      ...sums.map((c) => sql`sum(coalesce(${sql.ref(`x.${c}`)}, 0)) over w`),
      ...maxima.map((c) => sql`max(${sql.ref(`x.${c}`)}) over w`),
    ];
    const sameKey = sql.join(
      keys.map((k) => sql`${sql.ref(`x.${k}`)} = ${sql.ref(`f.${k}`)}`),
      sql` and `,
    );
    await sql`insert into ${sql.table(table)} (shop_id, day, ${ids([...keys, ...sums, ...maxima])})
      with deltas as (${keyedDeltas(table, shopId, offsetMs)}),
        firsts as (select ${ids(keys)}, min(day) as first_day from deltas group by ${ids(keys)})
      select d.shop_id, d.day, ${ids(keys, 'f')}, ${sql.join(measures)}
      from rollup_days d
      join firsts f on d.day >= f.first_day
      left join deltas x on x.day = d.day and ${sameKey}
      where d.shop_id = ${shopId}
      window w as (partition by ${ids(keys, 'f')} order by d.day rows between unbounded preceding and current row)`.execute(
      db,
    );
  }
}
