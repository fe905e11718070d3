import { type Faq, faqs } from '../../api/queries/faqs';
import type { BodyForm } from '../../forms/body-form';
import { Field } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';
import './content.css';

type FaqValues = { question: string; answer: string; position: string };

const config: ResourceScreenConfig<typeof faqs, FaqValues> = {
  resource: faqs,
  title: 'FAQs',
  addLabel: 'Add FAQ',
  searchLabel: 'Search questions and answers',
  caption: 'FAQs, in storefront order',
  empty: () => 'No FAQs yet.',
  rowKey: (f) => f.id,
  columns: () => [
    { header: 'Position', className: 'num', cell: (f) => f.position },
    { header: 'Question', cell: (f) => <strong>{f.question}</strong> },
    { header: 'Answer', cell: (f) => <p className="content-clip">{f.answer}</p> },
    { header: 'Updated', cell: (f) => dateTime(f.updatedAt) },
  ],
  remove: { label: 'Delete', question: (f) => `Delete the FAQ "${f.question}"?`, done: 'FAQ deleted' },
  dialog: { title: (f) => (f ? 'Edit FAQ' : 'New FAQ'), wide: true },
  form: {
    values: (f) => ({ question: f?.question ?? '', answer: f?.answer ?? '', position: f ? String(f.position) : '' }),
    toBody: (v) => ({
      question: v.question,
      answer: v.answer,
      position: v.position.trim() === '' ? null : Number(v.position),
    }),
    saved: (f) => (f ? 'FAQ saved' : 'FAQ added'),
    Fields: FaqFields,
  },
};

export default function FaqsScreen() {
  return <ResourceScreen config={config} />;
}

function FaqFields({ form, row }: { form: BodyForm<FaqValues, unknown>; row: Faq | null }) {
  return (
    <>
      <Field label="Question" error={form.problem('question')}>
        {(ids) => <input {...ids} {...form.register('question')} className="input" maxLength={500} />}
      </Field>
      <Field label="Answer" error={form.problem('answer')}>
        {(ids) => <textarea {...ids} {...form.register('answer')} className="input" rows={8} maxLength={10000} />}
      </Field>
      <Field
        label="Position"
        error={form.problem('position')}
        hint={
          row
            ? 'Lower comes first on the storefront. Empty keeps the FAQ where it is.'
            : 'Lower comes first on the storefront. Empty puts the FAQ after the last one.'
        }
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('position')}
            className="input"
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
          />
        )}
      </Field>
    </>
  );
}
