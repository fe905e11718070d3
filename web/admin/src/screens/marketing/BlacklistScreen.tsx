import { type BlockType, blacklist } from '../../api/queries/blacklist';
import type { BodyForm } from '../../forms/body-form';
import { Field } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { FilterSelect } from '../../ui/list';
import { Badge } from '../../ui/Page';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';

/** Every type the API blocks by (a Record, so a new one in the schema fails the type check here). */
const typeLabels: Record<BlockType, string> = { email: 'E-mail', ip: 'IP address or range', country: 'Country' };
const typeHints: Record<BlockType, string> = {
  email: 'An e-mail address; matched without regard to case.',
  ip: 'An IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/8.',
  country: 'A two-letter ISO country code, such as DE.',
};
const types = Object.keys(typeLabels) as BlockType[];

type BlockedValues = { type: BlockType; data: string; note: string };

const config: ResourceScreenConfig<typeof blacklist, BlockedValues> = {
  resource: blacklist,
  title: 'Blacklist',
  addLabel: 'Add to blacklist',
  intro: 'Checkout refuses a buyer whose e-mail, IP address or country is on this list.',
  searchLabel: 'Search values and notes',
  toolbar: (list) => (
    <FilterSelect list={list} name="type" label="Type filter" options={types.map((t) => [t, typeLabels[t]] as const)} />
  ),
  caption: 'Blocked e-mails, IP addresses and countries',
  empty: () => 'Nothing is blocked.',
  rowKey: (b) => b.id,
  columns: () => [
    { header: 'Value', cell: (b) => <code>{b.data}</code> },
    { header: 'Type', cell: (b) => <Badge tone="info">{typeLabels[b.type]}</Badge> },
    { header: 'Note', cell: (b) => b.note ?? <span className="muted">—</span> },
    { header: 'Added', cell: (b) => dateTime(b.createdAt) },
  ],
  remove: { label: 'Remove', question: (b) => `Remove ${b.data} from the blacklist?`, done: 'Unblocked' },
  dialog: { title: (b) => (b ? 'Edit blocked item' : 'Add to blacklist') },
  form: {
    values: (b) => ({ type: b?.type ?? 'email', data: b?.data ?? '', note: b?.note ?? '' }),
    toBody: (v) => ({ type: v.type, data: v.data, note: v.note.trim() === '' ? null : v.note }),
    saved: (b, answer) => (b ? 'Saved' : `Blocked ${answer.data}`),
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
      <Field label="Type" error={problem('type')}>
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
      <Field label="Value" error={problem('data')} hint={typeHints[form.watch('type')]}>
        {(ids) => <input {...ids} {...register('data')} className="input" autoComplete="off" />}
      </Field>
      <Field label="Note" error={problem('note')} hint="For you only.">
        {(ids) => <input {...ids} {...register('note')} className="input" />}
      </Field>
    </>
  );
}
