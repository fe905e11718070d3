import { useController } from 'react-hook-form';
import { type Group, type GroupBody, groups, useGroupThumbnailUpload } from '../../api/queries/groups';
import { queryKeys } from '../../api/queries/keys';
import { searchProducts, useProductNames } from '../../api/queries/products';
import { useShop } from '../../app/shop';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
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
  title: strings.common.groups,
  addLabel: strings.groups.addGroup,
  intro: strings.groups.aGroupShowsSeveral,
  searchLabel: strings.groups.searchGroups,
  caption: strings.common.groups,
  empty: (search) => (search ? strings.groups.noGroupMatchesThis : strings.groups.noGroupsYet),
  rowKey: (g) => g.id,
  columns: (open) => [
    {
      header: strings.common.title,
      cell: (g) => (
        <button type="button" className="catalog-link" onClick={() => open(g)}>
          {g.title}
        </button>
      ),
    },
    { header: strings.common.path, cell: (g) => <code>{g.path}</code> },
    {
      header: strings.groups.shownAs,
      cell: (g) => (g.type === 'dropdown' ? strings.groups.dropdown : strings.groups.list),
    },
    { header: strings.common.products, className: 'num', cell: (g) => count(g.productIds.length) },
    { header: strings.groups.priority, className: 'num', cell: (g) => count(g.priority) },
    { header: strings.groups.main, cell: (g) => (g.main ? <Badge tone="info">{strings.groups.main}</Badge> : '—') },
  ],
  remove: {
    label: strings.groups.deleteGroup,
    question: (g) => strings.groups.deleteTheGroupIts(g.title),
    done: strings.groups.groupDeleted,
    inForm: true,
  },
  dialog: { title: (g) => (g ? strings.groups.group(g.title) : strings.groups.newGroup), wide: true },
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
    saved: (g) => (g ? strings.groups.groupSaved : strings.groups.groupCreated),
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
      <Field label={strings.common.title} error={problem('title')}>
        {(ids) => <input {...ids} {...register('title')} className="input" />}
      </Field>
      <Field label={strings.common.description} error={problem('description')}>
        {(ids) => <textarea {...ids} {...register('description')} className="input" rows={3} />}
      </Field>
      <div className="grid">
        <Field
          label={strings.common.path}
          error={problem('path')}
          hint={row ? undefined : strings.common.emptyMadeFromThe}
        >
          {(ids) => <input {...ids} {...register('path')} className="input" />}
        </Field>
        <Field label={strings.groups.shownAs} error={problem('type')}>
          {(ids) => (
            <select {...ids} {...register('type')} className="input">
              <option value="list">{strings.groups.list}</option>
              <option value="dropdown">{strings.groups.dropdown}</option>
            </select>
          )}
        </Field>
        <Field label={strings.groups.priority} error={problem('priority')}>
          {(ids) => <input {...ids} {...register('priority')} className="input" inputMode="numeric" />}
        </Field>
      </div>
      <CheckField {...register('main')} error={problem('main')}>
        {strings.groups.mainGroup}
      </CheckField>
      <Picker
        noun={strings.groups.product}
        legend={strings.groups.productsInTheGroup}
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
      {row ? <Thumbnail group={row} /> : <p className="muted small">{strings.groups.addAThumbnailOnce}</p>}
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
      {url ? <img src={url} alt={strings.groups.groupThumbnail} className="catalog-thumb" /> : null}
      <Field
        label={strings.groups.groupThumbnail}
        error={upload.error instanceof Error ? upload.error.message : undefined}
        hint={upload.isPending ? strings.common.uploading : strings.groups.pngJpegWebpOr}
      >
        {(ids) => (
          <input
            {...ids}
            type="file"
            accept="image/png,image/jpeg,image/webp,image/gif"
            disabled={upload.isPending}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) upload.mutate(file, { onSuccess: () => notify(strings.groups.thumbnailUploaded) });
              e.target.value = '';
            }}
          />
        )}
      </Field>
    </div>
  );
}
