import { type ComponentType, type ReactNode, useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import type { ListState } from '../api/queries/list';
import {
  type AnyResource,
  type BodyOfResource,
  type RowOf,
  useRemoveResource,
  useResourceList,
  useSaveResource,
} from '../api/queries/resource';
import { useShopId } from '../app/shop';
import { type BodyForm, useBodyForm } from '../forms/body-form';
import { strings } from '../strings';
import { ConfirmButton, Dialog } from './Dialog';
import { FormError, FormProblems } from './Field';
import { type Column, DataTable, Pager, SearchBox } from './list';
import { LoadError, Page } from './Page';
import { useToast } from './Toast';

/**
 * The screen of a simple resource (api/queries/resource.ts): a searchable, paged table, a dialog
 * with the row's form (new or edited), and its delete. A screen (FAQs, coupons …) is a
 * configuration of it: its words, its columns and its form's fields.
 */
export interface ResourceScreenConfig<R extends AnyResource, Values extends FieldValues> {
  resource: R;
  title: string;
  /** The button that opens the empty form ("Add FAQ"). */
  addLabel: string;
  /** A line under the title saying what the resource is. */
  intro?: ReactNode;
  searchLabel: string;
  /** More of the toolbar, after the search box (a filter). */
  toolbar?: (list: ListState<RowOf<R>>) => ReactNode;
  caption: string;
  /** The empty table's text, with the search typed ('' for none). */
  empty: (search: string) => string;
  rowKey: (row: RowOf<R>) => string | number;
  /** The columns; `open(row)` shows the row's form (for a column that opens it itself). */
  columns: (open: (row: RowOf<R>) => void) => Column<RowOf<R>>[];
  remove: {
    label: string;
    question: (row: RowOf<R>) => string;
    /** The toast once deleted. */
    done: string;
    /**
     * Where the delete button is: in the row's form (its columns open it), or by default in an
     * Actions column, after an Edit button.
     */
    inForm?: boolean;
  };
  dialog: { title: (row: RowOf<R> | null) => string; wide?: boolean };
  form: {
    /** The form's values for a row, or for a new one. */
    values: (row: RowOf<R> | null) => Values;
    /** The body sent for the values; the API's schema of it checks the form first. */
    toBody: (values: Values, row: RowOf<R> | null) => BodyOfResource<R>;
    /** The toast once saved. */
    saved: (row: RowOf<R> | null, answer: RowOf<R>) => string;
    Fields: ComponentType<{ form: BodyForm<Values, BodyOfResource<R>>; row: RowOf<R> | null }>;
  };
}

export function ResourceScreen<R extends AnyResource, Values extends FieldValues>(props: {
  config: ResourceScreenConfig<R, Values>;
}) {
  const { config } = props;
  const shopId = useShopId();
  const notify = useToast();
  // null: closed; 'new': adding; a row: editing it.
  const [editing, setEditing] = useState<RowOf<R> | 'new' | null>(null);
  const list = useResourceList<RowOf<R>>(config.resource, shopId);
  const remove = useRemoveResource(config.resource, shopId, {
    onRemoved: () => notify(config.remove.done),
    onError: (error) => notify(error.message, 'bad'),
  });
  const actions: Column<RowOf<R>>[] = config.remove.inForm
    ? []
    : [
        {
          header: strings.common.actions,
          cell: (row) => (
            <div className="row">
              <button type="button" className="btn" onClick={() => setEditing(row)}>
                {strings.common.edit}
              </button>
              <ConfirmButton
                label={config.remove.label}
                danger
                question={config.remove.question(row)}
                disabled={remove.isPending}
                onConfirm={() => remove.mutate(row)}
              />
            </div>
          ),
        },
      ];
  const row = editing === 'new' ? null : editing;

  return (
    <Page
      title={config.title}
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          {config.addLabel}
        </button>
      }
    >
      {config.intro ? <p className="muted">{config.intro}</p> : null}
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={config.searchLabel} />
        {config.toolbar?.(list)}
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={config.caption}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={config.rowKey}
        empty={config.empty(list.search)}
        columns={[...config.columns(setEditing), ...actions]}
      />
      <Pager list={list} />
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={config.dialog.title(row)}
        wide={config.dialog.wide}
      >
        {editing !== null ? (
          <ResourceForm
            key={row === null ? 'new' : config.rowKey(row)}
            config={config}
            row={row}
            onDone={() => setEditing(null)}
          />
        ) : null}
      </Dialog>
    </Page>
  );
}

function ResourceForm<R extends AnyResource, Values extends FieldValues>(props: {
  config: ResourceScreenConfig<R, Values>;
  row: RowOf<R> | null;
  onDone: () => void;
}) {
  const { config, row } = props;
  const { resource, form: spec } = config;
  const shopId = useShopId();
  const notify = useToast();
  const form = useBodyForm({
    operation: row === null ? resource.create.operation : resource.update.operation,
    defaultValues: spec.values(row) as never,
    // The screen's toBody is checked against the resource's body type; here R is any resource.
    toBody: (values: Values) => spec.toBody(values, row) as never,
  }) as unknown as BodyForm<Values, BodyOfResource<R>>;
  const save = useSaveResource(resource, shopId, row, (answer) => notify(spec.saved(row, answer)));
  const remove = useRemoveResource(resource, shopId, { onRemoved: () => notify(config.remove.done) });
  const { Fields } = spec;
  return (
    <form
      className="stack"
      noValidate
      onSubmit={form.submit(async (body) => {
        await save.mutateAsync(body);
        props.onDone();
      })}
    >
      <FormProblems form={form} error={save.error} />
      {config.remove.inForm ? <FormError error={remove.error} /> : null}
      <Fields form={form} row={row} />
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? strings.common.saving : strings.common.save}
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          {strings.common.cancel}
        </button>
        {row !== null && config.remove.inForm ? (
          <ConfirmButton
            label={config.remove.label}
            question={config.remove.question(row)}
            onConfirm={() => remove.mutateAsync(row).then(props.onDone, () => undefined)}
            danger
            disabled={remove.isPending}
          />
        ) : null}
      </div>
    </form>
  );
}
