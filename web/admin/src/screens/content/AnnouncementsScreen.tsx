import { type Announcement, announcements } from '../../api/queries/announcements';
import type { BodyForm } from '../../forms/body-form';
import { CheckField, Field } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { Badge } from '../../ui/Page';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';
import './content.css';

type AnnouncementValues = {
  title: string;
  path: string;
  shortDescription: string;
  description: string;
  unlisted: boolean;
  private: boolean;
  buttonText: string;
  buttonLink: string;
};

function Visibility(props: { announcement: Announcement }) {
  if (props.announcement.private) return <Badge tone="muted">Private</Badge>;
  if (props.announcement.unlisted) return <Badge tone="info">Unlisted</Badge>;
  return <Badge tone="ok">Listed</Badge>;
}

/** Empty text is sent as null: the API clears an optional text given null. */
const orNull = (text: string) => (text.trim() === '' ? null : text);

const config: ResourceScreenConfig<typeof announcements, AnnouncementValues> = {
  resource: announcements,
  title: 'Announcements',
  addLabel: 'Add announcement',
  searchLabel: 'Search title, path or summary',
  caption: 'Announcements, newest first',
  empty: () => 'No announcements yet.',
  rowKey: (a) => a.id,
  columns: () => [
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
  ],
  remove: {
    label: 'Delete',
    question: (a) => `Delete the announcement "${a.title}"?`,
    done: 'Announcement deleted',
  },
  dialog: { title: (a) => (a ? 'Edit announcement' : 'New announcement'), wide: true },
  form: {
    values: (a) => ({
      title: a?.title ?? '',
      path: a?.path ?? '',
      shortDescription: a?.shortDescription ?? '',
      description: a?.description ?? '',
      unlisted: a?.unlisted ?? false,
      private: a?.private ?? false,
      buttonText: a?.buttonText ?? '',
      buttonLink: a?.buttonLink ?? '',
    }),
    toBody: (v) => ({
      title: v.title,
      path: orNull(v.path),
      shortDescription: orNull(v.shortDescription),
      description: v.description,
      unlisted: v.unlisted,
      private: v.private,
      buttonText: orNull(v.buttonText),
      buttonLink: orNull(v.buttonLink),
    }),
    saved: (a) => (a ? 'Announcement saved' : 'Announcement added'),
    Fields: AnnouncementFields,
  },
};

export default function AnnouncementsScreen() {
  return <ResourceScreen config={config} />;
}

function AnnouncementFields({ form, row }: { form: BodyForm<AnnouncementValues, unknown>; row: Announcement | null }) {
  const { register, problem } = form;
  return (
    <>
      <Field label="Title" error={problem('title')}>
        {(ids) => <input {...ids} {...register('title')} className="input" maxLength={200} />}
      </Field>
      <Field
        label="Path"
        error={problem('path')}
        hint={row ? 'Its address on the storefront. Empty keeps the current one.' : 'Empty: made from the title.'}
      >
        {(ids) => <input {...ids} {...register('path')} className="input" />}
      </Field>
      <Field label="Short description" error={problem('shortDescription')}>
        {(ids) => <textarea {...ids} {...register('shortDescription')} className="input" rows={2} maxLength={500} />}
      </Field>
      <Field label="Description" error={problem('description')}>
        {(ids) => <textarea {...ids} {...register('description')} className="input" rows={8} maxLength={50000} />}
      </Field>
      <div className="grid-2">
        <Field label="Button text" error={problem('buttonText')}>
          {(ids) => <input {...ids} {...register('buttonText')} className="input" maxLength={64} />}
        </Field>
        <Field label="Button link" error={problem('buttonLink')} hint="An https:// address.">
          {(ids) => (
            <input
              {...ids}
              {...register('buttonLink')}
              className="input"
              type="url"
              inputMode="url"
              placeholder="https://"
            />
          )}
        </Field>
      </div>
      <CheckField {...register('unlisted')} error={problem('unlisted')}>
        Unlisted: not on the main page, but reachable by its path
      </CheckField>
      <CheckField {...register('private')} error={problem('private')}>
        Private: not shown on any public page
      </CheckField>
    </>
  );
}
