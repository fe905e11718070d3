import { type Announcement, announcements } from '../../api/queries/announcements';
import { ShopTime } from '../../app/shop-dates';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { CheckField, Field } from '../../ui/Field';
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
  if (props.announcement.private) return <Badge tone="muted">{strings.announcements.private}</Badge>;
  if (props.announcement.unlisted) return <Badge tone="info">{strings.announcements.unlisted}</Badge>;
  return <Badge tone="ok">{strings.announcements.listed}</Badge>;
}

/** Empty text is sent as null: the API clears an optional text given null. */
const orNull = (text: string) => (text.trim() === '' ? null : text);

const config: ResourceScreenConfig<typeof announcements, AnnouncementValues> = {
  resource: announcements,
  title: strings.common.announcements,
  addLabel: strings.announcements.addAnnouncement,
  searchLabel: strings.announcements.searchTitlePathOr,
  caption: strings.announcements.announcementsNewestFirst,
  empty: () => strings.announcements.noAnnouncementsYet,
  rowKey: (a) => a.id,
  columns: () => [
    {
      header: strings.common.title,
      cell: (a) => (
        <>
          <strong>{a.title}</strong>
          {a.shortDescription ? <p className="content-clip muted small">{a.shortDescription}</p> : null}
        </>
      ),
    },
    { header: strings.common.path, cell: (a) => <code>{a.path}</code> },
    { header: strings.common.visibility, cell: (a) => <Visibility announcement={a} /> },
    { header: strings.common.updated, cell: (a) => <ShopTime iso={a.updatedAt} /> },
  ],
  remove: {
    label: strings.common.delete,
    question: (a) => strings.announcements.deleteTheAnnouncement(a.title),
    done: strings.announcements.announcementDeleted,
  },
  dialog: {
    title: (a) => (a ? strings.announcements.editAnnouncement : strings.announcements.newAnnouncement),
    wide: true,
  },
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
    saved: (a) => (a ? strings.announcements.announcementSaved : strings.announcements.announcementAdded),
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
      <Field label={strings.common.title} error={problem('title')}>
        {(ids) => <input {...ids} {...register('title')} className="input" maxLength={200} />}
      </Field>
      <Field
        label={strings.common.path}
        error={problem('path')}
        hint={row ? strings.announcements.itsAddressOnThe : strings.common.emptyMadeFromThe}
      >
        {(ids) => <input {...ids} {...register('path')} className="input" />}
      </Field>
      <Field label={strings.common.shortDescription} error={problem('shortDescription')}>
        {(ids) => <textarea {...ids} {...register('shortDescription')} className="input" rows={2} maxLength={500} />}
      </Field>
      <Field label={strings.common.description} error={problem('description')}>
        {(ids) => <textarea {...ids} {...register('description')} className="input" rows={8} maxLength={50000} />}
      </Field>
      <div className="grid-2">
        <Field label={strings.common.buttonText} error={problem('buttonText')}>
          {(ids) => <input {...ids} {...register('buttonText')} className="input" maxLength={64} />}
        </Field>
        <Field
          label={strings.announcements.buttonLink}
          error={problem('buttonLink')}
          hint={strings.announcements.anHttpsAddress}
        >
          {(ids) => (
            <input
              {...ids}
              {...register('buttonLink')}
              className="input"
              type="url"
              inputMode="url"
              placeholder={strings.common.https}
            />
          )}
        </Field>
      </div>
      <CheckField {...register('unlisted')} error={problem('unlisted')}>
        {strings.announcements.unlistedNotOnThe}
      </CheckField>
      <CheckField {...register('private')} error={problem('private')}>
        {strings.announcements.privateNotShownOn}
      </CheckField>
    </>
  );
}
