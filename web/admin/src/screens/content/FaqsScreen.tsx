import { type Faq, faqs } from '../../api/queries/faqs';
import { ShopTime } from '../../app/shop-dates';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Field } from '../../ui/Field';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';
import './content.css';

type FaqValues = { question: string; answer: string; position: string };

const config: ResourceScreenConfig<typeof faqs, FaqValues> = {
  resource: faqs,
  title: strings.common.faqs,
  addLabel: strings.faqs.addFaq,
  searchLabel: strings.faqs.searchQuestionsAndAnswers,
  caption: strings.faqs.faqsInStorefrontOrder,
  empty: () => strings.faqs.noFaqsYet,
  rowKey: (f) => f.id,
  columns: () => [
    { header: strings.faqs.position, className: 'num', cell: (f) => f.position },
    { header: strings.faqs.question, cell: (f) => <strong>{f.question}</strong> },
    { header: strings.common.answer, cell: (f) => <p className="content-clip">{f.answer}</p> },
    { header: strings.common.updated, cell: (f) => <ShopTime iso={f.updatedAt} /> },
  ],
  remove: {
    label: strings.common.delete,
    question: (f) => strings.faqs.deleteTheFaq(f.question),
    done: strings.faqs.faqDeleted,
  },
  dialog: { title: (f) => (f ? strings.faqs.editFaq : strings.faqs.newFaq), wide: true },
  form: {
    values: (f) => ({ question: f?.question ?? '', answer: f?.answer ?? '', position: f ? String(f.position) : '' }),
    toBody: (v) => ({
      question: v.question,
      answer: v.answer,
      position: v.position.trim() === '' ? null : Number(v.position),
    }),
    saved: (f) => (f ? strings.faqs.faqSaved : strings.faqs.faqAdded),
    Fields: FaqFields,
  },
};

export default function FaqsScreen() {
  return <ResourceScreen config={config} />;
}

function FaqFields({ form, row }: { form: BodyForm<FaqValues, unknown>; row: Faq | null }) {
  return (
    <>
      <Field label={strings.faqs.question} error={form.problem('question')}>
        {(ids) => <input {...ids} {...form.register('question')} className="input" maxLength={500} />}
      </Field>
      <Field label={strings.common.answer} error={form.problem('answer')}>
        {(ids) => <textarea {...ids} {...form.register('answer')} className="input" rows={8} maxLength={10000} />}
      </Field>
      <Field
        label={strings.faqs.position}
        error={form.problem('position')}
        hint={row ? strings.faqs.lowerComesFirstOn : strings.faqs.lowerComesFirstOnThe}
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
