import { useController } from 'react-hook-form';
import { type Group, type GroupBody, groups, useGroupThumbnailUpload } from '../../api/queries/groups';
import { queryKeys } from '../../api/queries/keys';
import { searchProducts, useProductNames } from '../../api/queries/products';
import { useShop } from '../../app/shop';
import type { BodyForm } from '../../forms/body-form';
import { CheckField, Field } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { Badge } from '../../ui/Page';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';
import { useToast } from '../../ui/Toast';
import './catalog.css';
import { Picker } from './Picker';

type GroupValues = {
  title: string;
  description: string;
  path: string;
  type: NonNullable<GroupBody['type']>;
  priority: string;
  main: boolean;
  productIds: number[];
};
type GroupForm = BodyForm<GroupValues, unknown>;

const config: ResourceScreenConfig<typeof groups, GroupValues> = {
  resource: groups,
  title: 'Groups',
  addLabel: 'Add group',
  intro: 'A group shows several products as one storefront listing.',
  searchLabel: 'Search groups',
  caption: 'Groups',
  empty: (search) => (search ? 'No group matches this search.' : 'No groups yet.'),
  rowKey: (g) => g.id,
  columns: (open) => [
    {
      header: 'Title',
      cell: (g) => (
        <button type="button" className="catalog-link" onClick={() => open(g)}>
          {g.title}
        </button>
      ),
    },
    { header: 'Path', cell: (g) => <code>{g.path}</code> },
    { header: 'Shown as', cell: (g) => (g.type === 'dropdown' ? 'Dropdown' : 'List') },
    { header: 'Products', className: 'num', cell: (g) => count(g.productIds.length) },
    { header: 'Priority', className: 'num', cell: (g) => count(g.priority) },
    { header: 'Main', cell: (g) => (g.main ? <Badge tone="info">Main</Badge> : '—') },
  ],
  remove: {
    label: 'Delete group',
    question: (g) => `Delete the group "${g.title}"? Its products go back to the storefront one by one.`,
    done: 'Group deleted',
    inForm: true,
  },
  dialog: { title: (g) => (g ? `Group: ${g.title}` : 'New group'), wide: true },
  form: {
    values: (g) => ({
      title: g?.title ?? '',
      description: g?.description ?? '',
      path: g?.path ?? '',
      type: g?.type ?? 'list',
      priority: String(g?.priority ?? 0),
      main: g?.main ?? false,
      productIds: g?.productIds ?? [],
    }),
    toBody: (v) => ({
      title: v.title,
      description: v.description.trim() === '' ? null : v.description,
      path: v.path.trim() === '' ? null : v.path.trim(),
      type: v.type,
      priority: v.priority.trim() === '' ? null : Number(v.priority),
      main: v.main,
      productIds: v.productIds,
    }),
    saved: (g) => (g ? 'Group saved' : 'Group created'),
    Fields: GroupFields,
  },
};

export default function GroupsScreen() {
  return <ResourceScreen config={config} />;
}

function GroupFields({ form, row }: { form: GroupForm; row: Group | null }) {
  const { shopId, currency } = useShop();
  const names = useProductNames(shopId);
  const { register, problem } = form;
  const { field } = useController({ control: form.control, name: 'productIds' });
  return (
    <>
      <Field label="Title" error={problem('title')}>
        {(ids) => <input {...ids} {...register('title')} className="input" />}
      </Field>
      <Field label="Description" error={problem('description')}>
        {(ids) => <textarea {...ids} {...register('description')} className="input" rows={3} />}
      </Field>
      <div className="grid">
        <Field label="Path" error={problem('path')} hint={row ? undefined : 'Empty: made from the title.'}>
          {(ids) => <input {...ids} {...register('path')} className="input" />}
        </Field>
        <Field label="Shown as" error={problem('type')}>
          {(ids) => (
            <select {...ids} {...register('type')} className="input">
              <option value="list">List</option>
              <option value="dropdown">Dropdown</option>
            </select>
          )}
        </Field>
        <Field label="Priority" error={problem('priority')}>
          {(ids) => <input {...ids} {...register('priority')} className="input" inputMode="numeric" />}
        </Field>
      </div>
      <CheckField {...register('main')} error={problem('main')}>
        Main group
      </CheckField>
      <Picker
        noun="product"
        legend="Products in the group"
        chosen={field.value}
        onChange={field.onChange}
        names={names.data}
        error={problem('productIds')}
        searchKey={queryKeys.products.picker(shopId)}
        search={async (text) => {
          const page = await searchProducts(shopId, text, 20);
          return {
            totalCount: page.totalCount,
            items: page.items.map((p) => ({ id: p.id, title: p.title, detail: money(p.minPrice.amount, currency) })),
          };
        }}
      />
      {row ? <Thumbnail group={row} /> : <p className="muted small">Add a thumbnail once the group is created.</p>}
    </>
  );
}

/** The group's thumbnail, uploaded at once (not with the form). */
function Thumbnail({ group }: { group: Group }) {
  const { shopId } = useShop();
  const notify = useToast();
  const upload = useGroupThumbnailUpload(shopId, group.id);
  const url = upload.data?.url ?? group.thumbnailUrl;
  return (
    <div className="stack">
      {url ? <img src={url} alt="Group thumbnail" className="catalog-thumb" /> : null}
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
              if (file) upload.mutate(file, { onSuccess: () => notify('Thumbnail uploaded') });
              e.target.value = '';
            }}
          />
        )}
      </Field>
    </div>
  );
}
