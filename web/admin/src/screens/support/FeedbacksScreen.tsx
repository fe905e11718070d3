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
import { ShopTime } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Dialog } from '../../ui/Dialog';
import { Field, FormProblems } from '../../ui/Field';
import { DataTable, FilterSelect, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import './support.css';

type AppealReason = Appeal['reason'];

const reasonLabels: Record<AppealReason, string> = strings.feedbacks.reasonLabels;
const appealStatusLabels: Record<AppealStatus, string> = strings.feedbacks.appealStatusLabels;
const appealTones = { open: 'warn', accepted: 'ok', rejected: 'bad' } as const;

export default function FeedbacksScreen() {
  const shopPath = useShopPath();
  const [params] = useSearchParams();
  const appeals = params.get('view') === 'appeals';
  return (
    <Page title={appeals ? strings.feedbacks.feedbackAppeals : strings.common.feedbacks}>
      <nav className="support-tabs" aria-label={strings.feedbacks.feedbackViews}>
        <Link href={shopPath('/feedbacks')} aria-current={appeals ? undefined : 'page'}>
          {strings.common.feedbacks}
        </Link>
        <Link href={shopPath('/feedbacks?view=appeals')} aria-current={appeals ? 'page' : undefined}>
          {strings.feedbacks.appeals}
        </Link>
      </nav>
      {appeals ? <AppealsList /> : <FeedbacksList />}
    </Page>
  );
}

function Stars(props: { rating: number }) {
  const full = Math.max(0, Math.min(5, Math.round(props.rating)));
  return (
    <span className="support-stars" role="img" aria-label={strings.feedbacks.outOf5(props.rating)}>
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
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.feedbacks.searchCommentAnswerOr} />
        <FilterSelect
          list={list}
          name="rating"
          label={strings.feedbacks.rating}
          options={[
            ['5', strings.feedbacks.n5Stars],
            ['4', strings.feedbacks.n4Stars],
            ['3', strings.feedbacks.n3Stars],
            ['2', strings.feedbacks.n2Stars],
            ['1', strings.feedbacks.n1Star],
          ]}
        />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={strings.common.feedbacks}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(f) => f.id}
        empty={strings.feedbacks.noFeedbackYet}
        columns={[
          { header: strings.feedbacks.rating, cell: (f) => <Stars rating={f.rating} /> },
          {
            header: strings.feedbacks.comment,
            cell: (f) =>
              f.comment ? (
                <p className="support-text">{f.comment}</p>
              ) : (
                <span className="muted">{strings.feedbacks.noComment}</span>
              ),
          },
          {
            header: strings.common.yourAnswer,
            cell: (f) =>
              f.answer ? (
                <>
                  <p className="support-text">{f.answer}</p>
                  <span className="muted small">
                    <ShopTime iso={f.answeredAt} />
                  </span>
                </>
              ) : (
                <span className="muted">{strings.feedbacks.notAnswered}</span>
              ),
          },
          {
            header: strings.common.order,
            cell: (f) => (
              <>
                <Link href={shopPath(`/orders/${encodeURIComponent(f.invoiceId)}`)}>{f.invoiceId}</Link>
                <br />
                <Link href={shopPath(`/customers/${f.customerId}`)} className="small">
                  {strings.feedbacks.customer(f.customerId)}
                </Link>
              </>
            ),
          },
          {
            header: strings.feedbacks.appeal,
            cell: (f) =>
              f.appeal ? (
                <span title={`${reasonLabels[f.appeal.reason]}: ${f.appeal.description}`}>
                  <Badge tone={appealTones[f.appeal.status]}>{appealStatusLabels[f.appeal.status]}</Badge>
                </span>
              ) : (
                <span className="muted">—</span>
              ),
          },
          { header: strings.common.date, cell: (f) => <ShopTime iso={f.createdAt} date /> },
          {
            header: strings.common.actions,
            cell: (f) => (
              <div className="row">
                <button type="button" className="btn" onClick={() => setAnswering(f)}>
                  {strings.common.answer}
                </button>
                <button
                  type="button"
                  className="btn"
                  onClick={() => setAppealing(f)}
                  disabled={f.appeal?.status === 'open' || f.appeal?.status === 'accepted'}
                >
                  {strings.feedbacks.appeal}
                </button>
              </div>
            ),
          },
        ]}
      />
      <Pager list={list} />
      <Dialog open={answering !== null} onClose={() => setAnswering(null)} title={strings.feedbacks.answerFeedback}>
        {answering ? <AnswerForm feedback={answering} onDone={() => setAnswering(null)} /> : null}
      </Dialog>
      <Dialog open={appealing !== null} onClose={() => setAppealing(null)} title={strings.feedbacks.appealFeedback}>
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
        <p className="muted">{strings.feedbacks.noCommentSentence}</p>
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
      notify(strings.feedbacks.answerPublished);
      await invalidate();
      props.onDone();
    },
  });
  return (
    <form className="stack" noValidate onSubmit={form.submit(save.mutateAsync)}>
      <FeedbackSummary feedback={props.feedback} />
      <FormProblems form={form} error={save.error} />
      <Field
        label={strings.feedbacks.publicAnswer}
        error={form.problem('answer')}
        hint={strings.feedbacks.shownUnderTheFeedback}
      >
        {(ids) => <textarea {...ids} {...form.register('answer')} className="input" rows={5} maxLength={2000} />}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {strings.feedbacks.saveAnswer}
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          {strings.common.cancel}
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
      notify(strings.feedbacks.appealSentForReview);
      await invalidate();
      props.onDone();
    },
  });
  return (
    <form className="stack" noValidate onSubmit={form.submit(send.mutateAsync)}>
      <FeedbackSummary feedback={props.feedback} />
      <p className="muted small">{strings.feedbacks.theServiceOperatorReviews}</p>
      <FormProblems form={form} error={send.error} />
      <Field label={strings.common.reason} error={form.problem('reason')}>
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
      <Field label={strings.feedbacks.whyShouldItBe} error={form.problem('description')}>
        {(ids) => <textarea {...ids} {...form.register('description')} className="input" rows={4} maxLength={2000} />}
      </Field>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={send.isPending}>
          {strings.feedbacks.sendAppeal}
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          {strings.common.cancel}
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
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.feedbacks.searchAppeals} />
        <FilterSelect
          list={list}
          name="status"
          label={strings.common.status}
          options={[
            ['open', strings.feedbacks.open],
            ['accepted', strings.feedbacks.accepted],
            ['rejected', strings.feedbacks.rejected],
          ]}
        />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={strings.feedbacks.appeals}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(a) => a.id}
        empty={strings.feedbacks.noAppeals}
        columns={[
          { header: strings.feedbacks.feedback, cell: (a) => `#${a.feedbackId}` },
          { header: strings.common.reason, cell: (a) => reasonLabels[a.reason] },
          { header: strings.common.description, cell: (a) => <p className="support-text">{a.description}</p> },
          {
            header: strings.common.status,
            cell: (a) => <Badge tone={appealTones[a.status]}>{appealStatusLabels[a.status]}</Badge>,
          },
          { header: strings.feedbacks.sent, cell: (a) => <ShopTime iso={a.createdAt} /> },
          { header: strings.feedbacks.resolved, cell: (a) => <ShopTime iso={a.resolvedAt} /> },
        ]}
      />
      <Pager list={list} />
    </>
  );
}
