import { formatDateTime } from '../../ui/format';
import { FORM_NAMES } from '../../portal/tax/tax-status';
import { type TaxSubmission, taxIdText, type UnmaskedRecord } from './tax-records';
import { type Fact, Facts } from '../../ui/Facts';

type Address = NonNullable<TaxSubmission['address']>;

function addressText(address: Address | null): string {
  if (!address) return '—';
  return [address.line1, address.line2, address.city, address.region, address.postal_code, address.country].filter(Boolean).join(', ');
}

/**
 * A tax record's fields as a list of facts. The tax id is shown exactly as the API answered it:
 * masked from the review queue, in full only from the audited read.
 */
export function RecordFacts({ record, taxIdLabel }: { record: TaxSubmission | UnmaskedRecord; taxIdLabel: string }) {
  const facts: Fact[] = [
    ['Form', FORM_NAMES[record.form_type]],
    ['Record status', record.status],
    ['Legal name', record.legal_name],
    ['Country', record.country],
    [taxIdLabel, taxIdText(record)],
  ];
  if (record.tin_type) facts.push(['Tax id type', record.tin_type.toUpperCase()]);
  if (record.foreign_tin_not_required_reason) facts.push(['Why no tax id', record.foreign_tin_not_required_reason]);
  if (record.tax_classification) facts.push(['Tax classification', record.tax_classification.replaceAll('_', ' ')]);
  if (record.chapter3_status) facts.push(['Chapter 3 status', record.chapter3_status.replaceAll('_', ' ')]);
  if (record.date_of_birth) facts.push(['Date of birth', record.date_of_birth]);
  if (record.address) facts.push(['Address', addressText(record.address)]);
  if (record.permanent_address) facts.push(['Permanent address', addressText(record.permanent_address)]);
  facts.push(['Signed', `${record.signature_name}, ${record.signature_date}`], ['Submitted', formatDateTime(record.submitted_at)]);
  if (record.approved_at) facts.push(['Approved', formatDateTime(record.approved_at)]);
  if (record.expires_at) facts.push(['Expires', formatDateTime(record.expires_at)]);
  if (record.revoked_at || record.revoked_reason)
    facts.push(['Revoked', [record.revoked_at ? formatDateTime(record.revoked_at) : null, record.revoked_reason].filter(Boolean).join(': ')]);
  return <Facts facts={facts} />;
}
