import { adminLayout, licenseTypeLabel } from '../console/layout.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import { transactionStatuses } from '../transactions/transactions.table.js';

// What the exports page (views/exports) receives: the four exports of the specification, each a
// GET form of its filters aimed at its /api/export route, which answers with the file.

export interface ExportChoices {
  products: Array<{ id: string; name: string; active: boolean }>;
  customers: Array<{ id: string; name: string; email: string }>;
}

type Field =
  | { kind: 'select'; label: string; name: string; options: Array<{ value: string; label: string }> }
  | { kind: 'date'; label: string; name: string; hint?: string };

interface ExportForm {
  id: string;
  title: string;
  format: 'CSV' | 'PDF';
  text: string;
  action: string;
  button: string;
  fields: Field[];
}

const option = (value: string) => ({ value, label: value });

export function exportsPageData(username: string, choices: ExportChoices) {
  const product: Field = {
    kind: 'select',
    label: 'Product',
    name: 'product',
    options: [
      { value: '', label: 'All products' },
      ...choices.products.map((p) => ({ value: p.id, label: p.active ? p.name : `${p.name} (inactive)` })),
    ],
  };
  const customer: Field = {
    kind: 'select',
    label: 'Customer',
    name: 'customer',
    options: [
      { value: '', label: 'All customers' },
      ...choices.customers.map((c) => ({ value: c.id, label: `${c.name} (${c.email})` })),
    ],
  };
  const active: Field = {
    kind: 'select',
    label: 'Active',
    name: 'active',
    options: [
      { value: '', label: 'Any' },
      { value: 'true', label: 'Active only' },
      { value: 'false', label: 'Not active only' },
    ],
  };
  const licenseType: Field = {
    kind: 'select',
    label: 'License type',
    name: 'licenseType',
    options: [
      { value: '', label: 'All types' },
      ...licenseTypes.map((type) => ({ value: type, label: licenseTypeLabel(type) })),
    ],
  };
  const licenseFields = [product, customer, active, licenseType];
  const forms: ExportForm[] = [
    {
      id: 'licenses-csv',
      title: 'Licenses',
      format: 'CSV',
      action: '/api/export/licenses/csv',
      button: 'Download licenses CSV',
      text: 'Every field of each license, one a row, in key order: for spreadsheets and other programs.',
      fields: licenseFields,
    },
    {
      id: 'licenses-pdf',
      title: 'Licenses',
      format: 'PDF',
      action: '/api/export/licenses/pdf',
      button: 'Download licenses PDF',
      text: 'A printable table of the licenses (key, product, customer, type, status, expiry, use), with the filters printed on top.',
      fields: licenseFields,
    },
    {
      id: 'transactions-csv',
      title: 'Transactions',
      format: 'CSV',
      action: '/api/export/transactions/csv',
      button: 'Download transactions CSV',
      text: 'Payments, oldest first, with their customer, license and product.',
      fields: [
        customer,
        {
          kind: 'select',
          label: 'Status',
          name: 'status',
          options: [{ value: '', label: 'Any status' }, ...transactionStatuses.map(option)],
        },
        { kind: 'date', label: 'From', name: 'startDate', hint: 'UTC, this day included' },
        { kind: 'date', label: 'To', name: 'endDate', hint: 'UTC, this day included' },
      ],
    },
    {
      id: 'summary-pdf',
      title: 'Summary report',
      format: 'PDF',
      action: '/api/export/summary/pdf',
      button: 'Download summary PDF',
      text: 'Counts of licenses by state, type and product, validations and transactions, over all data (no filters).',
      fields: [],
    },
  ];
  return { ...adminLayout('Exports', username, 'exports'), forms };
}
