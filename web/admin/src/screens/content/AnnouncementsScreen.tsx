import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { DataTable, type ListQuery, Pager, pageQuery, SearchBox, useList } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import './content.css';
import { useRemove } from '../../ui/remove';

type Announcement =
  paths['/self/{shopId}/announcements']['get']['responses'][200]['content']['application/json']['data']['items'][number];
type AnnouncementBody = paths['/self/{shopId}/announcements']['post']['requestBody']['content']['application/json'];

const fields = [
  'title',
  'path',
  'shortDescription',
  'description',
  'unlisted',
  'private',
  'buttonText',
  'buttonLink',
] as const;

function Visibility(props: { announcement: Announcement }) {
  if (props.announcement.private) return <Badge tone="muted">Private</Badge>;
  if (props.announcement.unlisted) return <Badge tone="info">Unlisted</Badge>;
  return <Badge tone="ok">Listed</Badge>;
}

export default function AnnouncementsScreen() {
  const shopId = useShopId();
  const [editing, setEditing] = useState<Announcement | 'new' | null>(null);
  const list = useList<Announcement>(['shop', shopId, 'announcements', 'list'], (query: ListQuery) =>
    unwrap(
      api.GET('/self/{shopId}/announcements', {
        params: {
          path: { shopId },
          query: {
            ...pageQuery(query),
          },
        },
      }),
    ),
  );
  const remove = useRemove(['shop', shopId, 'announcements'], 'Announcement deleted', (announcementId: number) =>
    unwrap(
      api.DELETE('/self/{shopId}/announcements/{announcementId}', { params: { path: { shopId, announcementId } } }),
    ),
  );

  return (
    <Page
      title="Announcements"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          Add announcement
        </button>
      }
    >
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search title, path or summary" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Announcements, newest first"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(a) => a.id}
        empty="No announcements yet."
        columns={[
          {
            header: 'Title',
            cell: (a) => (
              <>
                <strong>{a.title}</strong>
                {a.shortDescription ? <p className="content-clip muted small">{a.shortDescription}</p> : null}
              </>
            ),
          },
          { header: 'Path', cell: (a) => <code>{a.path}</code> },
          { header: 'Visibility', cell: (a) => <Visibility announcement={a} /> },
          { header: 'Updated', cell: (a) => dateTime(a.updatedAt) },
          {
            header: 'Actions',
            cell: (a) => (
              <div className="row">
                <button type="button" className="btn" onClick={() => setEditing(a)}>
                  Edit
                </button>
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete the announcement "${a.title}"?`}
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate(a.id)}
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
        title={editing === 'new' ? 'New announcement' : 'Edit announcement'}
        wide
      >
        {editing ? (
          <AnnouncementForm announcement={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />
        ) : null}
      </Dialog>
    </Page>
  );
}

/** Empty text is sent as null: the API clears an optional text given null. */
const orNull = (text: string) => (text.trim() === '' ? null : text);

function AnnouncementForm(props: { announcement: Announcement | null; onDone: () => void }) {
  const shopId = useShopId();
  const queryClient = useQueryClient();
  const notify = useToast();
  const a = props.announcement;
  const [title, setTitle] = useState(a?.title ?? '');
  const [path, setPath] = useState(a?.path ?? '');
  const [shortDescription, setShortDescription] = useState(a?.shortDescription ?? '');
  const [description, setDescription] = useState(a?.description ?? '');
  const [unlisted, setUnlisted] = useState(a?.unlisted ?? false);
  const [isPrivate, setPrivate] = useState(a?.private ?? false);
  const [buttonText, setButtonText] = useState(a?.buttonText ?? '');
  const [buttonLink, setButtonLink] = useState(a?.buttonLink ?? '');
  const save = useMutation({
    mutationFn: () => {
      const body: AnnouncementBody = {
        title,
        path: orNull(path),
        shortDescription: orNull(shortDescription),
        description,
        unlisted,
        private: isPrivate,
        buttonText: orNull(buttonText),
        buttonLink: orNull(buttonLink),
      };
      return a
        ? unwrap(
            api.PUT('/self/{shopId}/announcements/{announcementId}', {
              params: { path: { shopId, announcementId: a.id } },
              body,
            }),
          )
        : unwrap(api.POST('/self/{shopId}/announcements', { params: { path: { shopId } }, body }));
    },
    onSuccess: async () => {
      notify(a ? 'Announcement saved' : 'Announcement added');
      await queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'announcements'] });
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
      <Field label="Title" error={fieldError(save.error, 'title')}>
        {(ids) => (
          <input {...ids} className="input" maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        )}
      </Field>
      <Field
        label="Path"
        error={fieldError(save.error, 'path')}
        hint={a ? 'Its address on the storefront. Empty keeps the current one.' : 'Empty: made from the title.'}
      >
        {(ids) => <input {...ids} className="input" value={path} onChange={(e) => setPath(e.target.value)} />}
      </Field>
      <Field label="Short description" error={fieldError(save.error, 'shortDescription')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            rows={2}
            maxLength={500}
            value={shortDescription}
            onChange={(e) => setShortDescription(e.target.value)}
          />
        )}
      </Field>
      <Field label="Description" error={fieldError(save.error, 'description')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            rows={8}
            maxLength={50000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </Field>
      <div className="grid-2">
        <Field label="Button text" error={fieldError(save.error, 'buttonText')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              maxLength={64}
              value={buttonText}
              onChange={(e) => setButtonText(e.target.value)}
            />
          )}
        </Field>
        <Field label="Button link" error={fieldError(save.error, 'buttonLink')} hint="An https:// address.">
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="url"
              inputMode="url"
              placeholder="https://"
              value={buttonLink}
              onChange={(e) => setButtonLink(e.target.value)}
            />
          )}
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={unlisted} onChange={(e) => setUnlisted(e.target.checked)} />
        Unlisted: not on the main page, but reachable by its path
      </label>
      {fieldError(save.error, 'unlisted') ? <p className="field-error">{fieldError(save.error, 'unlisted')}</p> : null}
      <label className="check">
        <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.target.checked)} />
        Private: not shown on any public page
      </label>
      {fieldError(save.error, 'private') ? <p className="field-error">{fieldError(save.error, 'private')}</p> : null}
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
