import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useShop } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { type Column, DataTable, Pager, SearchBox, useList } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { type Group, type GroupBody, useProductNames } from './catalog';
import './catalog.css';
import { Picker } from './Picker';

export default function GroupsScreen() {
  const { shopId } = useShop();
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const list = useList<Group>(['shop', shopId, 'groups', 'list'], (query) =>
    unwrap(api.GET('/self/{shopId}/groups', { params: { path: { shopId }, query } })),
  );
  const columns: Column<Group>[] = [
    {
      header: 'Title',
      cell: (g) => (
        <button type="button" className="catalog-link" onClick={() => setEditing(g)}>
          {g.title}
        </button>
      ),
    },
    { header: 'Path', cell: (g) => <code>{g.path}</code> },
    { header: 'Shown as', cell: (g) => (g.type === 'dropdown' ? 'Dropdown' : 'List') },
    { header: 'Products', className: 'num', cell: (g) => count(g.productIds.length) },
    { header: 'Priority', className: 'num', cell: (g) => count(g.priority) },
    { header: 'Main', cell: (g) => (g.main ? <Badge tone="info">Main</Badge> : '—') },
  ];
  return (
    <Page
      title="Groups"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          Add group
        </button>
      }
    >
      <p className="muted">A group shows several products as one storefront listing.</p>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search groups" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        rows={list.rows}
        columns={columns}
        rowKey={(g) => g.id}
        list={list}
        loading={list.result.isPending}
        caption="Groups"
        empty={list.search ? 'No group matches this search.' : 'No groups yet.'}
      />
      <Pager list={list} />
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' || editing === null ? 'New group' : `Group: ${editing.title}`}
        wide
      >
        {editing !== null ? (
          <GroupForm
            key={editing === 'new' ? 'new' : editing.id}
            group={editing === 'new' ? null : editing}
            onDone={() => setEditing(null)}
          />
        ) : null}
      </Dialog>
    </Page>
  );
}

function GroupForm(props: { group: Group | null; onDone: () => void }) {
  const { shopId, currency } = useShop();
  const queryClient = useQueryClient();
  const notify = useToast();
  const names = useProductNames(shopId);
  const g = props.group;
  const [title, setTitle] = useState(g?.title ?? '');
  const [description, setDescription] = useState(g?.description ?? '');
  const [path, setPath] = useState(g?.path ?? '');
  const [type, setType] = useState<NonNullable<GroupBody['type']>>(g?.type ?? 'list');
  const [priority, setPriority] = useState(String(g?.priority ?? 0));
  const [main, setMain] = useState(g?.main ?? false);
  const [productIds, setProductIds] = useState<number[]>(g?.productIds ?? []);
  const [thumbnail, setThumbnail] = useState(g?.thumbnailUrl ?? null);

  const invalidate = () =>
    Promise.all(
      ['groups', 'listings', 'categories'].map((area) =>
        queryClient.invalidateQueries({ queryKey: ['shop', shopId, area] }),
      ),
    );

  const save = useMutation({
    mutationFn: () => {
      const body: GroupBody = {
        title,
        description: description.trim() === '' ? null : description,
        path: path.trim() === '' ? null : path.trim(),
        type,
        priority: priority.trim() === '' ? null : Number(priority),
        main,
        productIds,
      };
      return g
        ? unwrap(api.PUT('/self/{shopId}/groups/{groupId}', { params: { path: { shopId, groupId: g.id } }, body }))
        : unwrap(api.POST('/self/{shopId}/groups', { params: { path: { shopId } }, body }));
    },
    onSuccess: async () => {
      notify(g ? 'Group saved' : 'Group created');
      await invalidate();
      props.onDone();
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/self/{shopId}/groups/{groupId}', { params: { path: { shopId, groupId: g!.id } } })),
    onSuccess: async () => {
      notify('Group deleted');
      await invalidate();
      props.onDone();
    },
  });
  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      // The typed body is a placeholder: the serializer sends the multipart form with its `file` part.
      return unwrap(
        api.POST('/self/{shopId}/groups/{groupId}/thumbnail', {
          params: { path: { shopId, groupId: g!.id } },
          body: { file: '' },
          bodySerializer: () => form,
        }),
      );
    },
    onSuccess: async (answer) => {
      setThumbnail(answer.url);
      notify('Thumbnail uploaded');
      await invalidate();
    },
  });

  const fields = ['title', 'description', 'path', 'type', 'priority', 'main', 'productIds'];
  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <FormError error={save.error} fields={fields} />
      <FormError error={remove.error} />
      <Field label="Title" error={fieldError(save.error, 'title')}>
        {(ids) => <input {...ids} className="input" value={title} onChange={(e) => setTitle(e.target.value)} />}
      </Field>
      <Field label="Description" error={fieldError(save.error, 'description')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            rows={3}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </Field>
      <div className="grid">
        <Field label="Path" error={fieldError(save.error, 'path')} hint={g ? undefined : 'Empty: made from the title.'}>
          {(ids) => <input {...ids} className="input" value={path} onChange={(e) => setPath(e.target.value)} />}
        </Field>
        <Field label="Shown as" error={fieldError(save.error, 'type')}>
          {(ids) => (
            <select
              {...ids}
              className="input"
              value={type}
              onChange={(e) => setType(e.target.value as NonNullable<GroupBody['type']>)}
            >
              <option value="list">List</option>
              <option value="dropdown">Dropdown</option>
            </select>
          )}
        </Field>
        <Field label="Priority" error={fieldError(save.error, 'priority')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              inputMode="numeric"
              value={priority}
              onChange={(e) => setPriority(e.target.value)}
            />
          )}
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={main} onChange={(e) => setMain(e.target.checked)} />
        Main group
      </label>
      <Picker
        noun="product"
        legend="Products in the group"
        chosen={productIds}
        onChange={setProductIds}
        names={names.data}
        error={fieldError(save.error, 'productIds')}
        searchKey={['shop', shopId, 'products', 'picker']}
        search={async (text) => {
          const page = await unwrap(
            api.GET('/self/{shopId}/products', {
              params: { path: { shopId }, query: { pageSize: 20, ...(text ? { searchString: text } : {}) } },
            }),
          );
          return {
            totalCount: page.totalCount,
            items: page.items.map((p) => ({ id: p.id, title: p.title, detail: money(p.minPrice.amount, currency) })),
          };
        }}
      />
      {g ? (
        <div className="stack">
          {thumbnail ? <img src={thumbnail} alt="Group thumbnail" className="catalog-thumb" /> : null}
          <Field
            label="Group thumbnail"
            error={upload.error instanceof Error ? upload.error.message : undefined}
            hint={upload.isPending ? 'Uploading…' : 'PNG, JPEG, WebP or GIF; uploaded at once.'}
          >
            {(ids) => (
              <input
                {...ids}
                type="file"
                accept="image/png,image/jpeg,image/webp,image/gif"
                disabled={upload.isPending}
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) upload.mutate(file);
                  e.target.value = '';
                }}
              />
            )}
          </Field>
        </div>
      ) : (
        <p className="muted small">Add a thumbnail once the group is created.</p>
      )}
      <div className="catalog-actions">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Cancel
        </button>
        {g ? (
          <ConfirmButton
            label="Delete group"
            question={`Delete the group "${g.title}"? Its products go back to the storefront one by one.`}
            onConfirm={() => remove.mutate()}
            danger
            disabled={remove.isPending}
          />
        ) : null}
      </div>
    </form>
  );
}
