import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { DataTable, type ListQuery, Pager, pageQuery, SearchBox, useList } from '../../ui/list';
import { LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import './content.css';
import { useRemove } from '../../ui/remove';

type Faq =
  paths['/self/{shopId}/faqs']['get']['responses'][200]['content']['application/json']['data']['items'][number];
type FaqBody = paths['/self/{shopId}/faqs']['post']['requestBody']['content']['application/json'];

const fields = ['question', 'answer', 'position'] as const;

export default function FaqsScreen() {
  const shopId = useShopId();
  // null: closed; 'new': creating; a FAQ: editing it.
  const [editing, setEditing] = useState<Faq | 'new' | null>(null);
  const list = useList<Faq>(['shop', shopId, 'faqs', 'list'], (query: ListQuery) =>
    unwrap(
      api.GET('/self/{shopId}/faqs', {
        params: {
          path: { shopId },
          query: {
            ...pageQuery(query),
          },
        },
      }),
    ),
  );
  const remove = useRemove(['shop', shopId, 'faqs'], 'FAQ deleted', (faqId: number) =>
    unwrap(api.DELETE('/self/{shopId}/faqs/{faqId}', { params: { path: { shopId, faqId } } })),
  );

  return (
    <Page
      title="FAQs"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          Add FAQ
        </button>
      }
    >
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search questions and answers" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="FAQs, in storefront order"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(f) => f.id}
        empty="No FAQs yet."
        columns={[
          { header: 'Position', className: 'num', cell: (f) => f.position },
          { header: 'Question', cell: (f) => <strong>{f.question}</strong> },
          { header: 'Answer', cell: (f) => <p className="content-clip">{f.answer}</p> },
          { header: 'Updated', cell: (f) => dateTime(f.updatedAt) },
          {
            header: 'Actions',
            cell: (f) => (
              <div className="row">
                <button type="button" className="btn" onClick={() => setEditing(f)}>
                  Edit
                </button>
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete the FAQ "${f.question}"?`}
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate(f.id)}
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
        title={editing === 'new' ? 'New FAQ' : 'Edit FAQ'}
        wide
      >
        {editing ? <FaqForm faq={editing === 'new' ? null : editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
    </Page>
  );
}

function FaqForm(props: { faq: Faq | null; onDone: () => void }) {
  const shopId = useShopId();
  const queryClient = useQueryClient();
  const notify = useToast();
  const [question, setQuestion] = useState(props.faq?.question ?? '');
  const [answer, setAnswer] = useState(props.faq?.answer ?? '');
  const [position, setPosition] = useState(props.faq ? String(props.faq.position) : '');
  const save = useMutation({
    mutationFn: () => {
      const body: FaqBody = { question, answer, position: position.trim() === '' ? null : Number(position) };
      return props.faq
        ? unwrap(api.PUT('/self/{shopId}/faqs/{faqId}', { params: { path: { shopId, faqId: props.faq.id } }, body }))
        : unwrap(api.POST('/self/{shopId}/faqs', { params: { path: { shopId } }, body }));
    },
    onSuccess: async () => {
      notify(props.faq ? 'FAQ saved' : 'FAQ added');
      await queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'faqs'] });
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
      <Field label="Question" error={fieldError(save.error, 'question')}>
        {(ids) => (
          <input
            {...ids}
            className="input"
            maxLength={500}
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
          />
        )}
      </Field>
      <Field label="Answer" error={fieldError(save.error, 'answer')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            rows={8}
            maxLength={10000}
            value={answer}
            onChange={(e) => setAnswer(e.target.value)}
          />
        )}
      </Field>
      <Field
        label="Position"
        error={fieldError(save.error, 'position')}
        hint={
          props.faq
            ? 'Lower comes first on the storefront. Empty keeps the FAQ where it is.'
            : 'Lower comes first on the storefront. Empty puts the FAQ after the last one.'
        }
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            value={position}
            onChange={(e) => setPosition(e.target.value)}
          />
        )}
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
