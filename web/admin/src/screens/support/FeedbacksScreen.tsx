import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import {
  type Appeal,
  type AppealStatus,
  type Feedback,
  useAppealList,
  useFeedbackList,
  useInvalidateFeedbacks,
} from '../../api/queries/feedbacks';
import { useShopId, useShopPath } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { Dialog } from '../../ui/Dialog';
import { Field, FormProblems } from '../../ui/Field';
import { date, dateTime } from '../../ui/format';
import { DataTable, FilterSelect, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import './support.css';

type AppealReason = Appeal['reason'];

const reasonLabels: Record<AppealReason, string> = {
  spam: 'Spam',
  abusive: 'Abusive',
  wrong_product: 'About another product',
  resolved: 'The problem was resolved',
  other: 'Other',
};
const appealStatusLabels: Record<AppealStatus, string> = {
  open: 'Appeal open',
  accepted: 'Appeal accepted (hidden)',
  rejected: 'Appeal rejected',
};
const appealTones = { open: 'warn', accepted: 'ok', rejected: 'bad' } as const;

export default function FeedbacksScreen() {
  const shopPath = useShopPath();
  const [params] = useSearchParams();
  const appeals = params.get('view') === 'appeals';
  return (
    <Page title={appeals ? 'Feedback appeals' : 'Feedbacks'}>
      <nav className="support-tabs" aria-label="Feedback views">
        <Link href={shopPath('/feedbacks')} aria-current={appeals ? undefined : 'page'}>
          Feedbacks
        </Link>
        <Link href={shopPath('/feedbacks?view=appeals')} aria-current={appeals ? 'page' : undefined}>
          Appeals
        </Link>
      </nav>
      {appeals ? <AppealsList /> : <FeedbacksList />}
    </Page>
  );
}

function Stars(props: { rating: number }) {
  const full = Math.max(0, Math.min(5, Math.round(props.rating)));
  return (
    <span className="support-stars" role="img" aria-label={`${props.rating} out of 5`}>
      {'★'.repeat(full)}
      {'☆'.repeat(5 - full)}
    </span>
  );
}

function FeedbacksList() {
  const shopId = useShopId();
  const shopPath = useShopPath();
  const [answering, setAnswering] = useState<Feedback | null>(null);
  const [appealing, setAppealing] = useState<Feedback | null>(null);
  const list = useFeedbackList(shopId);
  return (
    <>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search comment, answer or order" />
        <FilterSelect
          list={list}
          name="rating"
          label="Rating"
          options={[
            ['5', '5 stars'],
            ['4', '4 stars'],
            ['3', '3 stars'],
            ['2', '2 stars'],
            ['1', '1 star'],
          ]}
        />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Feedbacks"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(f) => f.id}
        empty="No feedback yet."
        columns={[
          { header: 'Rating', cell: (f) => <Stars rating={f.rating} /> },
          {
            header: 'Comment',
            cell: (f) =>
              f.comment ? <p className="support-text">{f.comment}</p> : <span className="muted">No comment</span>,
          },
          {
            header: 'Your answer',
            cell: (f) =>
              f.answer ? (
                <>
                  <p className="support-text">{f.answer}</p>
                  <span className="muted small">{dateTime(f.answeredAt)}</span>
                </>
              ) : (
                <span className="muted">Not answered</span>
              ),
          },
          {
            header: 'Order',
            cell: (f) => (
              <>
                <Link href={shopPath(`/orders/${encodeURIComponent(f.invoiceId)}`)}>{f.invoiceId}</Link>
                <br />
                <Link href={shopPath(`/customers/${f.customerId}`)} className="small">
                  Customer #{f.customerId}
                </Link>
              </>
            ),
          },
          {
            header: 'Appeal',
            cell: (f) =>
              f.appeal ? (
                <span title={`${reasonLabels[f.appeal.reason]}: ${f.appeal.description}`}>
                  <Badge tone={appealTones[f.appeal.status]}>{appealStatusLabels[f.appeal.status]}</Badge>
                </span>
              ) : (
                <span className="muted">—</span>
              ),
          },
          { header: 'Date', cell: (f) => date(f.createdAt) },
          {
            header: 'Actions',
            cell: (f) => (
              <div className="row">
                <button type="button" className="btn" onClick={() => setAnswering(f)}>
                  Answer
                </button>
                <button
                  type="button"
                  className="btn"
                  onClick={() => setAppealing(f)}
                  disabled={f.appeal?.status === 'open' || f.appeal?.status === 'accepted'}
                >
                  Appeal
                </button>
              </div>
            ),
          },
        ]}
      />
      <Pager list={list} />
      <Dialog open={answering !== null} onClose={() => setAnswering(null)} title="Answer feedback">
        {answering ? <AnswerForm feedback={answering} onDone={() => setAnswering(null)} /> : null}
      </Dialog>
      <Dialog open={appealing !== null} onClose={() => setAppealing(null)} title="Appeal feedback">
        {appealing ? <AppealForm feedback={appealing} onDone={() => setAppealing(null)} /> : null}
      </Dialog>
    </>
  );
}

function FeedbackSummary(props: { feedback: Feedback }) {
  return (
    <div className="stack">
      <Stars rating={props.feedback.rating} />
      {props.feedback.comment ? (
        <blockquote className="support-text">{props.feedback.comment}</blockquote>
      ) : (
        <p className="muted">No comment.</p>
      )}
    </div>
  );
}

function AnswerForm(props: { feedback: Feedback; onDone: () => void }) {
  const shopId = useShopId();
  const notify = useToast();
  const invalidate = useInvalidateFeedbacks(shopId);
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/feedbacks/{feedbackId}/answer',
    defaultValues: { answer: props.feedback.answer ?? '' },
    toBody: (values) => values,
  });
  const save = useMutation({
    mutationFn: (body: BodyOf<'POST /self/{shopId}/feedbacks/{feedbackId}/answer'>) =>
      unwrap(
        api.POST('/self/{shopId}/feedbacks/{feedbackId}/answer', {
          params: { path: { shopId, feedbackId: props.feedback.id } },
          body,
        }),
      ),
    onSuccess: async () => {
      notify('Answer published');
      await invalidate();
      props.onDone();
    },
  });
  return (
    <form className="stack" noValidate onSubmit={form.submit(save.mutateAsync)}>
      <FeedbackSummary feedback={props.feedback} />
      <FormProblems form={form} error={save.error} />
      <Field
        label="Public answer"
        error={form.problem('answer')}
        hint="Shown under the feedback on the storefront; replaces an earlier answer."
      >
        {(ids) => <textarea {...ids} {...form.register('answer')} className="input" rows={5} maxLength={2000} />}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          Save answer
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function AppealForm(props: { feedback: Feedback; onDone: () => void }) {
  const shopId = useShopId();
  const notify = useToast();
  const invalidate = useInvalidateFeedbacks(shopId);
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/feedbacks/{feedbackId}/appeal',
    defaultValues: { reason: 'spam' as AppealReason, description: '' },
    toBody: (values) => values,
  });
  const send = useMutation({
    mutationFn: (body: BodyOf<'POST /self/{shopId}/feedbacks/{feedbackId}/appeal'>) =>
      unwrap(
        api.POST('/self/{shopId}/feedbacks/{feedbackId}/appeal', {
          params: { path: { shopId, feedbackId: props.feedback.id } },
          body,
        }),
      ),
    onSuccess: async () => {
      notify('Appeal sent for review');
      await invalidate();
      props.onDone();
    },
  });
  return (
    <form className="stack" noValidate onSubmit={form.submit(send.mutateAsync)}>
      <FeedbackSummary feedback={props.feedback} />
      <p className="muted small">
        The service operator reviews appeals. An accepted appeal hides the feedback from the storefront and from every
        rating figure.
      </p>
      <FormProblems form={form} error={send.error} />
      <Field label="Reason" error={form.problem('reason')}>
        {(ids) => (
          <select {...ids} {...form.register('reason')} className="input">
            {(Object.keys(reasonLabels) as AppealReason[]).map((r) => (
              <option key={r} value={r}>
                {reasonLabels[r]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Why should it be reviewed?" error={form.problem('description')}>
        {(ids) => <textarea {...ids} {...form.register('description')} className="input" rows={4} maxLength={2000} />}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={send.isPending}>
          Send appeal
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function AppealsList() {
  const shopId = useShopId();
  const list = useAppealList(shopId);
  return (
    <>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search appeals" />
        <FilterSelect
          list={list}
          name="status"
          label="Status"
          options={[
            ['open', 'Open'],
            ['accepted', 'Accepted'],
            ['rejected', 'Rejected'],
          ]}
        />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Appeals"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(a) => a.id}
        empty="No appeals."
        columns={[
          { header: 'Feedback', cell: (a) => `#${a.feedbackId}` },
          { header: 'Reason', cell: (a) => reasonLabels[a.reason] },
          { header: 'Description', cell: (a) => <p className="support-text">{a.description}</p> },
          {
            header: 'Status',
            cell: (a) => <Badge tone={appealTones[a.status]}>{appealStatusLabels[a.status]}</Badge>,
          },
          { header: 'Sent', cell: (a) => dateTime(a.createdAt) },
          { header: 'Resolved', cell: (a) => dateTime(a.resolvedAt) },
        ]}
      />
      <Pager list={list} />
    </>
  );
}
