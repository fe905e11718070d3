import { type BlockType, blacklist } from '../../api/queries/blacklist';
import { ShopTime } from '../../app/shop-dates';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Field } from '../../ui/Field';
import { FilterSelect } from '../../ui/list';
import { Badge } from '../../ui/Page';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';

/** Every type the API blocks by (a Record, so a new one in the schema fails the type check here). */
const typeLabels: Record<BlockType, string> = strings.blacklist.typeLabels;
const typeHints: Record<BlockType, string> = strings.blacklist.typeHints;
const types = Object.keys(typeLabels) as BlockType[];

type BlockedValues = { type: BlockType; data: string; note: string };

const config: ResourceScreenConfig<typeof blacklist, BlockedValues> = {
  resource: blacklist,
  title: strings.common.blacklist,
  addLabel: strings.blacklist.addToBlacklist,
  intro: strings.blacklist.checkoutRefusesABuyer,
  searchLabel: strings.blacklist.searchValuesAndNotes,
  toolbar: (list) => (
    <FilterSelect
      list={list}
      name="type"
      label={strings.blacklist.typeFilter}
      options={types.map((t) => [t, typeLabels[t]] as const)}
    />
  ),
  caption: strings.blacklist.blockedEMailsIp,
  empty: () => strings.blacklist.nothingIsBlocked,
  rowKey: (b) => b.id,
  columns: () => [
    { header: strings.common.value, cell: (b) => <code>{b.data}</code> },
    { header: strings.common.type, cell: (b) => <Badge tone="info">{typeLabels[b.type]}</Badge> },
    { header: strings.common.note, cell: (b) => b.note ?? <span className="muted">—</span> },
    { header: strings.common.added, cell: (b) => <ShopTime iso={b.createdAt} /> },
  ],
  remove: {
    label: strings.common.remove,
    question: (b) => strings.blacklist.removeFromTheBlacklist(b.data),
    done: strings.blacklist.unblocked,
  },
  dialog: { title: (b) => (b ? strings.blacklist.editBlockedItem : strings.blacklist.addToBlacklist) },
  form: {
    values: (b) => ({ type: b?.type ?? 'email', data: b?.data ?? '', note: b?.note ?? '' }),
    toBody: (v) => ({ type: v.type, data: v.data, note: v.note.trim() === '' ? null : v.note }),
    saved: (b, answer) => (b ? strings.blacklist.saved : strings.blacklist.blocked(answer.data)),
    Fields: BlockedItemFields,
  },
};

export default function BlacklistScreen() {
  return <ResourceScreen config={config} />;
}

function BlockedItemFields({ form }: { form: BodyForm<BlockedValues, unknown> }) {
  const { register, problem } = form;
  return (
    <>
      <Field label={strings.common.type} error={problem('type')}>
        {(ids) => (
          <select {...ids} {...register('type')} className="input">
            {types.map((t) => (
              <option key={t} value={t}>
                {typeLabels[t]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={strings.common.value} error={problem('data')} hint={typeHints[form.watch('type')]}>
        {(ids) => <input {...ids} {...register('data')} className="input" autoComplete="off" />}
      </Field>
      <Field label={strings.common.note} error={problem('note')} hint={strings.common.forYouOnly}>
        {(ids) => <input {...ids} {...register('note')} className="input" />}
      </Field>
    </>
  );
}
