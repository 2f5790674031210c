ALTER TABLE "usage_records" DROP CONSTRAINT "usage_records_license_id_licenses_id_fk";
