import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { DataTable, FilterSelect, type ListQuery, Pager, pageQuery, SearchBox, useList } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useRemove } from '../../ui/remove';
import { useToast } from '../../ui/Toast';

type BlockedItem =
  paths['/self/{shopId}/blacklist']['get']['responses'][200]['content']['application/json']['data']['items'][number];
type BlockedBody = paths['/self/{shopId}/blacklist']['post']['requestBody']['content']['application/json'];
type BlockType = BlockedItem['type'];

/** Every type the API blocks by (a Record, so a new one in the schema fails the type check here). */
const typeLabels: Record<BlockType, string> = { email: 'E-mail', ip: 'IP address or range', country: 'Country' };
const typeHints: Record<BlockType, string> = {
  email: 'An e-mail address; matched without regard to case.',
  ip: 'An IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/8.',
  country: 'A two-letter ISO country code, such as DE.',
};
const types = Object.keys(typeLabels) as BlockType[];
const fields = ['type', 'data', 'note'] as const;

export default function BlacklistScreen() {
  const shopId = useShopId();
  const [editing, setEditing] = useState<BlockedItem | 'new' | null>(null);
  const list = useList<BlockedItem>(
    ['shop', shopId, 'blacklist', 'list'],
    (query: ListQuery) =>
      unwrap(
        api.GET('/self/{shopId}/blacklist', {
          params: {
            path: { shopId },
            query: {
              ...pageQuery(query),
              ...(query.type ? { type: query.type as BlockType } : {}),
            },
          },
        }),
      ),
    { filters: ['type'] },
  );
  const remove = useRemove(['shop', shopId, 'blacklist'], 'Unblocked', (blockedItemId: number) =>
    unwrap(api.DELETE('/self/{shopId}/blacklist/{blockedItemId}', { params: { path: { shopId, blockedItemId } } })),
  );

  return (
    <Page
      title="Blacklist"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          Add to blacklist
        </button>
      }
    >
      <p className="muted">Checkout refuses a buyer whose e-mail, IP address or country is on this list.</p>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search values and notes" />
        <FilterSelect
          list={list}
          name="type"
          label="Type filter"
          options={types.map((t) => [t, typeLabels[t]] as const)}
        />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Blocked e-mails, IP addresses and countries"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(b) => b.id}
        empty="Nothing is blocked."
        columns={[
          { header: 'Value', cell: (b) => <code>{b.data}</code> },
          { header: 'Type', cell: (b) => <Badge tone="info">{typeLabels[b.type]}</Badge> },
          { header: 'Note', cell: (b) => b.note ?? <span className="muted">—</span> },
          { header: 'Added', cell: (b) => dateTime(b.createdAt) },
          {
            header: 'Actions',
            cell: (b) => (
              <div className="row">
                <button type="button" className="btn" onClick={() => setEditing(b)}>
                  Edit
                </button>
                <ConfirmButton
                  label="Remove"
                  danger
                  question={`Remove ${b.data} from the blacklist?`}
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate(b.id)}
                />
              </div>
            ),
          },
        ]}
      />
      <Pager list={list} />
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'Add to blacklist' : 'Edit blocked item'}
      >
        {editing ? <BlockedItemForm item={editing === 'new' ? null : editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
    </Page>
  );
}

function BlockedItemForm(props: { item: BlockedItem | null; onDone: () => void }) {
  const shopId = useShopId();
  const queryClient = useQueryClient();
  const notify = useToast();
  const item = props.item;
  const [type, setType] = useState<BlockType>(item?.type ?? 'email');
  const [data, setData] = useState(item?.data ?? '');
  const [note, setNote] = useState(item?.note ?? '');
  const save = useMutation({
    mutationFn: () => {
      const body: BlockedBody = { type, data, note: note.trim() === '' ? null : note };
      return item
        ? unwrap(
            api.PUT('/self/{shopId}/blacklist/{blockedItemId}', {
              params: { path: { shopId, blockedItemId: item.id } },
              body,
            }),
          )
        : unwrap(api.POST('/self/{shopId}/blacklist', { params: { path: { shopId } }, body }));
    },
    onSuccess: async (saved) => {
      notify(item ? 'Saved' : `Blocked ${saved.data}`);
      await queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'blacklist'] });
      props.onDone();
    },
  });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <FormError error={save.error} fields={fields} />
      <Field label="Type" error={fieldError(save.error, 'type')}>
        {(ids) => (
          <select {...ids} className="input" value={type} onChange={(e) => setType(e.target.value as BlockType)}>
            {types.map((t) => (
              <option key={t} value={t}>
                {typeLabels[t]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Value" error={fieldError(save.error, 'data')} hint={typeHints[type]}>
        {(ids) => (
          <input {...ids} className="input" autoComplete="off" value={data} onChange={(e) => setData(e.target.value)} />
        )}
      </Field>
      <Field label="Note" error={fieldError(save.error, 'note')} hint="For you only.">
        {(ids) => <input {...ids} className="input" value={note} onChange={(e) => setNote(e.target.value)} />}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          Save
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
